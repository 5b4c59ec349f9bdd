// client-node is ESM-only; jest cannot load it, Node can (see nativeRequire). The reconciler imports the runtime's index.
jest.mock('@kubernetes/client-node', () =>
  jest.requireActual<typeof import('../runtime/support/native-require')>('../runtime/support/native-require').nativeRequire('@kubernetes/client-node'),
);

import type { RedisClusterObject } from '../../../operator/rediscluster/cluster-object';
import { ReconcilerHarness } from './fakes/reconciler-harness';
import { isTopologyCommand, clusterReadyToFailOver, promotions, recordsWritten } from './fakes/scenarios';

/** Someone else changes the RedisCluster (a user's annotation): its resourceVersion moves on in the apiserver. */
function annotateElsewhere(harness: ReconcilerHarness, cluster: ReturnType<ReconcilerHarness['addCluster']>): void {
  harness.kube.update<RedisClusterObject>(cluster.reference(), (object) => {
    object.metadata.annotations = { ...object.metadata.annotations, 'example.com/touched': 'yes' };
  });
}

describe('RedisClusterReconciler with a stale cache (I5)', () => {
  it('issues no topology command when the record write is refused with 409, and asks to be retried soon', async () => {
    const { harness, cluster } = await clusterReadyToFailOver();
    harness.kube.stallWatch();
    annotateElsewhere(harness, cluster);

    const { result, calls } = await harness.reconcileRecorded(cluster);

    expect(recordsWritten(calls, 409)).toEqual([{ primary: 'cache-1', epoch: 2 }]);
    expect(calls.filter(isTopologyCommand)).toEqual([]);
    expect(harness.journal.apiWrites(calls)).toEqual([]);
    expect(result).toMatchObject({ requeueAfterMs: expect.any(Number) });
    expect((result as { requeueAfterMs: number }).requeueAfterMs).toBeLessThanOrEqual(1000);
    expect(cluster.status().primaryRecord).toMatchObject({ primary: 'cache-0', epoch: 1 });
  });

  it('fails over on the retry once the cache has caught up', async () => {
    const { harness, cluster } = await clusterReadyToFailOver();
    harness.kube.stallWatch();
    annotateElsewhere(harness, cluster);
    await harness.reconcile(cluster);
    harness.kube.resumeWatch();
    harness.clocks.advance(200);

    await harness.reconcile(cluster);

    expect(promotions(harness.journal.entries)).toEqual([`${cluster.address(1)}:6379`]);
    expect(cluster.status().primaryRecord).toMatchObject({ primary: 'cache-1', epoch: 2 });
  });

  it('reads the cluster from the apiserver when its cache shows an epoch older than its own last write', async () => {
    const { harness, cluster } = await clusterReadyToFailOver();
    harness.kube.stallWatch();
    await harness.reconcile(cluster);

    const { calls } = await harness.reconcileRecorded(cluster);

    const reads = harness.journal.apiReads(calls);
    expect(reads).toContainEqual(expect.objectContaining({ verb: 'get', kind: 'RedisCluster', name: 'cache', outcome: 'ok' }));
  });

  it('does not fail over a second time while its watch lags behind its own failover (issue item 4)', async () => {
    const { harness, cluster } = await clusterReadyToFailOver();
    // The watch stalls as the failover happens: the cache keeps showing cache-0 as the recorded, labelled primary.
    harness.kube.stallWatch();
    await harness.reconcile(cluster);

    // Twelve seconds of passes, well past detection time, all from the stale cache.
    await harness.reconcileRepeatedly(cluster, 12, 1000);

    expect(promotions(harness.journal.entries)).toEqual([`${cluster.address(1)}:6379`]);
    // The one decision, written again only to add the new primary's replication id.
    expect(new Set(recordsWritten(harness.journal.entries).map((record) => `${record.primary}@${record.epoch}`))).toEqual(new Set(['cache-1@2']));
    expect(harness.journal.events().filter((event) => event.reason === 'PrimaryFailedOver')).toHaveLength(1);
    expect(cluster.labelledPrimaries()).toEqual(['cache-1']);
  });

  it('converges without another promotion once the watch resumes', async () => {
    const { harness, cluster } = await clusterReadyToFailOver();
    harness.kube.stallWatch();
    await harness.reconcile(cluster);
    await harness.reconcileRepeatedly(cluster, 5, 1000);
    harness.kube.resumeWatch();

    await harness.reconcileRepeatedly(cluster, 3, 1000);

    expect(promotions(harness.journal.entries)).toHaveLength(1);
    expect(cluster.labelledPrimaries()).toEqual(['cache-1']);
    expect(cluster.status()).toMatchObject({ primary: 'cache-1', primaryRecord: { primary: 'cache-1', epoch: 2 } });
  });
});
