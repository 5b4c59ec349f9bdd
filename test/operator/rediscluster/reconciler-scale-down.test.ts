// client-node is ESM-only; jest cannot load it, Node can (see nativeRequire). The reconciler imports the runtime's index.
jest.mock('@kubernetes/client-node', () =>
  jest.requireActual<typeof import('../runtime/support/native-require')>('../runtime/support/native-require').nativeRequire('@kubernetes/client-node'),
);

import { ReconcilerHarness } from './fakes/reconciler-harness';
import { primaryStopsAnswering, promotions } from './fakes/scenarios';

describe('RedisClusterReconciler scale-down racing a failover (issue item 8)', () => {
  it('never promotes a pod being scaled away, even when it holds the most writes: the cluster waits', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster();
    await harness.reconcile(cluster);
    // cache-1 falls behind; cache-2 has every write.
    cluster.server(1).stuckLinkDownSeconds = 5;
    harness.redis.write(cluster.address(0), 20);
    cluster.updateSpec({ replicas: 2 });
    await primaryStopsAnswering(harness, cluster);

    await harness.reconcileRepeatedly(cluster, 10, 1000);

    expect(promotions(harness.journal.entries)).toEqual([]);
    expect(JSON.stringify(cluster.status().conditions)).toContain('being scaled away');
  });

  it('promotes a pod that stays, not the one being scaled away, when both hold every write', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster();
    await harness.reconcile(cluster);
    cluster.updateSpec({ replicas: 2 });
    await primaryStopsAnswering(harness, cluster);

    await harness.reconcileRepeatedly(cluster, 5, 1000);

    expect(promotions(harness.journal.entries)).toEqual([`${cluster.address(1)}:6379`]);
  });

  it('never promotes a pod being scaled away when it is the only other member holding every write', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster({ pods: 2, spec: { replicas: 2 } });
    await harness.reconcile(cluster);
    cluster.updateSpec({ replicas: 1 });
    await primaryStopsAnswering(harness, cluster);

    await harness.reconcileRepeatedly(cluster, 10, 1000);

    expect(promotions(harness.journal.entries)).toEqual([]);
  });
});
