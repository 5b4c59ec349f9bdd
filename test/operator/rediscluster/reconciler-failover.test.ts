// client-node is ESM-only; jest cannot load it, Node can (see nativeRequire). The reconciler imports the runtime's index.
jest.mock('@kubernetes/client-node', () =>
  jest.requireActual<typeof import('../runtime/support/native-require')>('../runtime/support/native-require').nativeRequire('@kubernetes/client-node'),
);

import type { JournalEntry } from './fakes/call-journal';
import { ReconcilerHarness } from './fakes/reconciler-harness';
import { FAILOVER_AFTER_MILLISECONDS, isTopologyCommand, clusterReadyToFailOver, primaryStopsAnswering, promotions, recordWrites, recordsWritten } from './fakes/scenarios';

/** Index of the first entry matching, or fails the test saying what was missing. */
function indexOf(entries: readonly JournalEntry[], what: string, predicate: (entry: JournalEntry) => boolean): number {
  const index = entries.findIndex(predicate);
  if (index < 0) throw new Error(`no ${what} in the journal:\n${entries.map((entry) => JSON.stringify(entry)).join('\n')}`);
  return index;
}

function isPodLabelWrite(entry: JournalEntry): boolean {
  return entry.system === 'api' && entry.kind === 'Pod' && entry.verb === 'mergePatch' && entry.outcome === 'ok';
}

describe('RedisClusterReconciler failover', () => {
  it('writes the primary record (epoch + 1, conditional on the resourceVersion it decided from) before any Redis command that changes the topology', async () => {
    const { harness, cluster } = await clusterReadyToFailOver();
    const decidedFrom = cluster.object().metadata.resourceVersion;

    const { calls } = await harness.reconcileRecorded(cluster);

    const record = indexOf(calls, 'record write', (entry) => recordWrites([entry]).length === 1);
    expect(recordWrites(calls)[0]).toMatchObject({ precondition: decidedFrom, outcome: 'ok', body: { primaryRecord: { primary: 'cache-1', epoch: 2 } } });
    expect(indexOf(calls, 'topology command', isTopologyCommand)).toBeGreaterThan(record);
    expect(indexOf(calls, 'pod label write', isPodLabelWrite)).toBeGreaterThan(record);
  });

  it('promotes the provably current replica and repoints the other one to it', async () => {
    const { harness, cluster } = await clusterReadyToFailOver();

    await harness.reconcile(cluster);

    expect(cluster.server(1).role).toBe('primary');
    expect(cluster.server(2)).toMatchObject({ role: 'replica', primaryHost: cluster.address(1) });
    expect(cluster.status().primaryRecord).toMatchObject({ primary: 'cache-1', epoch: 2 });
  });

  it('detaches every other replica from the old primary before promoting the chosen one (I2)', async () => {
    const { harness, cluster } = await clusterReadyToFailOver();

    const { calls } = await harness.reconcileRecorded(cluster);

    const detach = indexOf(calls, 'detach of cache-2', (entry) => entry.system === 'redis' && entry.command === 'REPLICAOF' && entry.address === `${cluster.address(2)}:6379`);
    expect(calls[detach]).toMatchObject({ details: { primaryHost: '127.0.0.1', primaryPort: 1 } });
    expect(indexOf(calls, 'promotion', (entry) => entry.system === 'redis' && entry.command === 'REPLICAOF NO ONE')).toBeGreaterThan(detach);
  });

  it('leaves exactly one pod labelled primary, the new one, and unlabels the old one first (I3)', async () => {
    const { harness, cluster } = await clusterReadyToFailOver();

    const { calls } = await harness.reconcileRecorded(cluster);

    const labelWrites = harness.journal.apiWrites(calls).filter((call) => call.kind === 'Pod');
    const unlabel = labelWrites.findIndex((call) => call.name === 'cache-0');
    const label = labelWrites.findIndex((call) => call.name === 'cache-1' && JSON.stringify(call.body).includes('"primary"'));
    expect(unlabel).toBeGreaterThanOrEqual(0);
    expect(label).toBeGreaterThan(unlabel);
    expect(cluster.labelledPrimaries()).toEqual(['cache-1']);
  });

  it('carries the pod resourceVersion it decided from on every label write (I6)', async () => {
    const { harness, cluster } = await clusterReadyToFailOver();

    const { calls } = await harness.reconcileRecorded(cluster);

    const labelWrites = harness.journal.apiWrites(calls).filter((call) => call.kind === 'Pod');
    expect(labelWrites.length).toBeGreaterThan(0);
    for (const call of labelWrites) expect(call.precondition).toEqual(expect.any(String));
  });

  it('does not fail over while the primary has been silent for less than the detection time and the fence', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster();
    await primaryStopsAnswering(harness, cluster);
    harness.clocks.advance(FAILOVER_AFTER_MILLISECONDS - 1);

    await harness.reconcile(cluster);

    expect(promotions(harness.journal.entries)).toEqual([]);
    expect(cluster.condition('Degraded')).toMatchObject({ status: 'True', reason: 'PrimarySuspect' });
  });

  it('asks to be looked at again within a probe interval while the primary is suspect', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster();
    await harness.reconcile(cluster);
    cluster.stopAnswering(0);

    const result = await harness.reconcile(cluster);

    expect(result).toMatchObject({ requeueAfterMs: expect.any(Number) });
    expect((result as { requeueAfterMs: number }).requeueAfterMs).toBeLessThanOrEqual(500);
  });

  it('reports FailingOver on the failover pass and Available once the new primary serves', async () => {
    const { harness, cluster } = await clusterReadyToFailOver();

    await harness.reconcile(cluster);
    const duringFailover = cluster.status().phase;
    harness.clocks.advance(1000);
    await harness.reconcile(cluster);

    expect(duringFailover).toBe('FailingOver');
    // The old primary's pod still runs but does not answer, so 2 of 3 pods serve.
    expect(cluster.status()).toMatchObject({ primary: 'cache-1', ready: '2/3' });
    expect(cluster.condition('Available')).toMatchObject({ status: 'True' });
  });

  it('emits exactly one PrimaryFailedOver Event for one failover', async () => {
    const { harness, cluster } = await clusterReadyToFailOver();

    await harness.reconcileRepeatedly(cluster, 5, 1000);

    expect(harness.journal.events().filter((event) => event.reason === 'PrimaryFailedOver')).toHaveLength(1);
    expect(recordsWritten(harness.journal.entries).map((record) => record.epoch)).not.toContain(3);
  });
});
