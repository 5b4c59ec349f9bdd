// client-node is ESM-only; jest cannot load it, Node can (see nativeRequire). The reconciler imports the runtime's index.
jest.mock('@kubernetes/client-node', () =>
  jest.requireActual<typeof import('../runtime/support/native-require')>('../runtime/support/native-require').nativeRequire('@kubernetes/client-node'),
);

import type { ClusterFixture } from './fakes/cluster-fixture';
import { ReconcilerHarness } from './fakes/reconciler-harness';

function configSetsBy(harness: ReconcilerHarness, cluster: ClusterFixture): number[] {
  const calls = harness.journal.redisCommands().filter((call) => call.command === 'CONFIG SET');
  return [0, 1, 2].map((ordinal) => calls.filter((call) => call.address === `${cluster.address(ordinal)}:6379`).length);
}

describe('RedisClusterReconciler live configuration (issue item 7)', () => {
  it('tracks two same-named clusters in two namespaces apart: each pod gets its CONFIG SET once', async () => {
    const harness = new ReconcilerHarness();
    const shop = harness.addCluster({ namespace: 'shop', name: 'cache', subnet: 0 });
    const games = harness.addCluster({ namespace: 'games', name: 'cache', subnet: 1 });

    for (let round = 0; round < 3; round += 1) {
      await harness.reconcile(shop);
      await harness.reconcile(games);
    }

    expect(configSetsBy(harness, shop)).toEqual([1, 1, 1]);
    expect(configSetsBy(harness, games)).toEqual([1, 1, 1]);
  });

  it('applies a changed parameter to every pod once', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster();
    await harness.reconcile(cluster);
    cluster.updateSpec({ config: { 'maxmemory-policy': 'allkeys-lru' } });

    await harness.reconcile(cluster);
    await harness.reconcile(cluster);

    expect(configSetsBy(harness, cluster)).toEqual([2, 2, 2]);
    expect(cluster.server(2).config.get('maxmemory-policy')).toBe('allkeys-lru');
  });

  it('applies the parameters again to a pod whose Redis restarted', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster();
    await harness.reconcile(cluster);
    cluster.server(2).runId = 'restarted-process';

    await harness.reconcile(cluster);

    expect(configSetsBy(harness, cluster)).toEqual([1, 1, 2]);
  });

  it('forgets a deleted cluster: a cluster created again with its name gets its CONFIG SET again', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster();
    await harness.reconcile(cluster);
    const saved = cluster.object();
    harness.kube.remove(cluster.reference());
    await harness.reconcile(cluster);
    harness.kube.put(saved);

    await harness.reconcile(cluster);

    expect(configSetsBy(harness, cluster)).toEqual([2, 2, 2]);
  });
});
