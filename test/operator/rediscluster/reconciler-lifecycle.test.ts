// client-node is ESM-only; jest cannot load it, Node can (see nativeRequire). The reconciler imports the runtime's index.
jest.mock('@kubernetes/client-node', () =>
  jest.requireActual<typeof import('../runtime/support/native-require')>('../runtime/support/native-require').nativeRequire('@kubernetes/client-node'),
);

import type { RedisClusterObject } from '../../../operator/rediscluster/cluster-object';
import { FINALIZER } from '../../../src/naming';
import { ReconcilerHarness } from './fakes/reconciler-harness';
import { clusterReadyToFailOver, promotions, recordsWritten } from './fakes/scenarios';

/**
 * No member is provably current (the primary stopped answering, cache-2 restarted from AOF), then a human names
 * cache-1 with the force-primary annotation and the controller reconciles once more.
 */
async function forcedFailover() {
  const harness = new ReconcilerHarness();
  const cluster = harness.addCluster();
  await harness.reconcile(cluster);
  cluster.stopAnswering(0);
  harness.redis.restart(cluster.address(2), 'aof');
  await harness.reconcileRepeatedly(cluster, 5, 1000);
  cluster.annotate('redis.redkite.io/force-primary', 'cache-1');
  await harness.reconcile(cluster);
  return { harness, cluster };
}

describe('RedisClusterReconciler over a cluster lifetime', () => {
  it('elects ordinal 0 of a new cluster once every pod serves, recording epoch 1 before promoting it', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster({ fresh: true });

    const { calls } = await harness.reconcileRecorded(cluster);

    const record = calls.findIndex((entry) => recordsWritten([entry]).length === 1);
    const promotion = calls.findIndex((entry) => entry.system === 'redis' && entry.command === 'REPLICAOF NO ONE');
    expect(recordsWritten(calls)).toEqual([{ primary: 'cache-0', epoch: 1 }]);
    expect(record).toBeGreaterThanOrEqual(0);
    expect(promotion).toBeGreaterThan(record);
    expect(cluster.server(1)).toMatchObject({ role: 'replica', primaryHost: cluster.address(0) });
    expect(cluster.labelledPrimaries()).toEqual(['cache-0']);
  });

  it('reaches Ready a pass after bootstrap and then stays silent', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster({ fresh: true });
    await harness.reconcileRepeatedly(cluster, 3, 1000);

    const { calls } = await harness.reconcileRecorded(cluster);

    expect(cluster.status().phase).toBe('Ready');
    expect(harness.journal.describeChanges(calls)).toEqual([]);
  });

  it('adopts the labelled primary of a cluster that has no record yet (an older controller), without promoting anyone', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster({ recorded: false });

    await harness.reconcile(cluster);

    expect(recordsWritten(harness.journal.entries)).toEqual([{ primary: 'cache-0', epoch: 1 }]);
    expect(promotions(harness.journal.entries)).toEqual([]);
    expect(cluster.status().primaryRecord).toMatchObject({ primary: 'cache-0', epoch: 1, replicationId: 'history-shop-cache' });
  });

  it('demotes the old primary when it answers again as a primary after a failover', async () => {
    const { harness, cluster } = await clusterReadyToFailOver();
    await harness.reconcile(cluster);
    cluster.server(0).reachability = 'serving';

    await harness.reconcile(cluster);

    expect(cluster.server(0)).toMatchObject({ role: 'replica', primaryHost: cluster.address(1) });
    expect(harness.journal.events().map((event) => event.reason)).toContain('StalePrimaryDemoted');
    expect(cluster.labelledPrimaries()).toEqual(['cache-1']);
  });

  it('promotes the pod a human names with the force-primary annotation when no member is provably current, once', async () => {
    const { harness, cluster } = await forcedFailover();

    expect(promotions(harness.journal.entries)).toEqual([`${cluster.address(1)}:6379`]);
    expect(harness.journal.events().map((event) => event.reason)).toContain('ForcedPrimary');
    expect(cluster.object().metadata.annotations?.['redis.redkite.io/force-primary']).toBeUndefined();
  });

  it('records the failover time in status on the pass of a forced failover', async () => {
    const { harness, cluster } = await forcedFailover();

    expect(cluster.status().lastFailoverTime).toBe(new Date(harness.clocks.now()).toISOString());
  });

  it('records the failover time in status on the pass of an automatic failover', async () => {
    const { harness, cluster } = await clusterReadyToFailOver();

    await harness.reconcile(cluster);

    expect(cluster.status().lastFailoverTime).toBe(new Date(harness.clocks.now()).toISOString());
  });

  it('removes its finalizer from a deleted cluster and stops watching its primary', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster();
    await harness.reconcile(cluster);
    await harness.kube.delete(cluster.reference());

    await harness.reconcile(cluster);

    expect(harness.kube.read<RedisClusterObject>(cluster.reference())).toBeUndefined();
    expect(harness.watchdog.watched.size).toBe(0);
  });

  it('adds its finalizer to a cluster that has none', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster();
    harness.kube.update<RedisClusterObject>(cluster.reference(), (object) => {
      object.metadata.finalizers = [];
    });

    await harness.reconcile(cluster);

    expect(cluster.object().metadata.finalizers).toEqual([FINALIZER]);
  });
});
