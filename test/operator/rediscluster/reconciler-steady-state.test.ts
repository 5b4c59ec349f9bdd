// client-node is ESM-only; jest cannot load it, Node can (see nativeRequire). The reconciler imports the runtime's index.
jest.mock('@kubernetes/client-node', () =>
  jest.requireActual<typeof import('../runtime/support/native-require')>('../runtime/support/native-require').nativeRequire('@kubernetes/client-node'),
);

import { ReconcilerHarness } from './fakes/reconciler-harness';

describe('RedisClusterReconciler on a healthy cluster', () => {
  it('makes no API write and sends no Redis command but probes on the second and third reconcile of an unchanged, healthy, recorded cluster', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster();
    await harness.reconcile(cluster);
    harness.clocks.advance(30_000);

    harness.journal.markNow();
    await harness.reconcile(cluster);
    harness.clocks.advance(30_000);
    await harness.reconcile(cluster);

    const calls = harness.journal.sinceMark();
    expect(harness.journal.describeChanges(calls)).toEqual([]);
    expect(harness.journal.apiWriteAttempts(calls)).toEqual([]);
    expect(harness.journal.redisCommands(calls)).toEqual([]);
    expect(harness.journal.events(calls)).toEqual([]);
    // Every pod was still looked at, twice: the silence is not from skipping the cluster.
    expect(harness.journal.probes(calls)).toHaveLength(6);
  });

  it('reports the healthy cluster Ready and Available with its recorded primary', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster();

    await harness.reconcile(cluster);

    expect(cluster.status()).toMatchObject({ phase: 'Ready', primary: 'cache-0', ready: '3/3', primaryRecord: { primary: 'cache-0', epoch: 1 } });
    expect(cluster.condition('Ready')).toMatchObject({ status: 'True' });
    expect(cluster.condition('Available')).toMatchObject({ status: 'True' });
  });

  it('sets the live configuration once per Redis process on the first reconcile', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster();

    await harness.reconcile(cluster);

    const configSets = harness.journal.redisCommands().filter((call) => call.command === 'CONFIG SET');
    expect(configSets.map((call) => call.address).sort()).toEqual([cluster.address(0), cluster.address(1), cluster.address(2)].map((host) => `${host}:6379`).sort());
  });

  it('asks to be looked at again only after the healthy recheck period', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster();
    await harness.reconcile(cluster);

    await expect(harness.reconcile(cluster)).resolves.toEqual({ requeueAfterMs: 30_000 });
  });

  it('watches the primary between reconciles', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster();

    await harness.reconcile(cluster);

    expect(harness.watchdog.watched.get('shop/cache')).toMatchObject({ host: cluster.address(0), port: 6379 });
  });
});
