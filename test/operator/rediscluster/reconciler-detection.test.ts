// client-node is ESM-only; jest cannot load it, Node can (see nativeRequire). The reconciler imports the runtime's index.
jest.mock('@kubernetes/client-node', () =>
  jest.requireActual<typeof import('../runtime/support/native-require')>('../runtime/support/native-require').nativeRequire('@kubernetes/client-node'),
);

import { ReconcilerHarness } from './fakes/reconciler-harness';
import { FAILOVER_AFTER_MILLISECONDS, primaryStopsAnswering, promotions } from './fakes/scenarios';

const TEN_MINUTES_IN_30_SECOND_PASSES = 20;

describe('RedisClusterReconciler failure detection', () => {
  it('never fails over a primary that answers -WRONGPASS, however long it lasts (I4)', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster();
    await harness.reconcile(cluster);
    // The primary's password changed under it: it is alive and refuses the controller.
    cluster.server(0).passwords.clear();
    cluster.server(0).passwords.add('someone-elses-password');

    await harness.reconcileRepeatedly(cluster, TEN_MINUTES_IN_30_SECOND_PASSES, 30_000);

    expect(promotions(harness.journal.entries)).toEqual([]);
    expect(harness.journal.redisCommands().filter((call) => call.command === 'REPLICAOF')).toEqual([]);
    expect(harness.journal.events().map((event) => event.reason)).not.toContain('PrimaryUnreachable');
    expect(cluster.status().primaryRecord).toMatchObject({ primary: 'cache-0', epoch: 1 });
    expect(cluster.condition('Degraded')).toMatchObject({ status: 'True' });
    expect(JSON.stringify(cluster.status().conditions)).toContain('WRONGPASS');
  });

  it('never fails over a primary that is loading its data set (I4)', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster();
    await harness.reconcile(cluster);
    cluster.server(0).loading = true;

    await harness.reconcileRepeatedly(cluster, TEN_MINUTES_IN_30_SECOND_PASSES, 30_000);

    expect(promotions(harness.journal.entries)).toEqual([]);
  });

  it('does not fail over when only the wall clock jumps past the detection time (I7)', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster();
    await primaryStopsAnswering(harness, cluster);
    harness.clocks.jumpWallClock(60 * 60_000);
    harness.clocks.advance(100);

    await harness.reconcile(cluster);

    expect(promotions(harness.journal.entries)).toEqual([]);
    expect(cluster.condition('Degraded')).toMatchObject({ status: 'True', reason: 'PrimarySuspect' });
  });

  it('fails over once the monotonic clock has run past the detection time', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster();
    await primaryStopsAnswering(harness, cluster);
    harness.clocks.advance(FAILOVER_AFTER_MILLISECONDS);

    await harness.reconcile(cluster);

    expect(promotions(harness.journal.entries)).toEqual([`${cluster.address(1)}:6379`]);
  });

  it('does not fail over while a replica restarted from AOF may hold writes nobody else has, and says whom it waits for (I1)', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster();
    await primaryStopsAnswering(harness, cluster);
    harness.redis.restart(cluster.address(2), 'aof');

    await harness.reconcileRepeatedly(cluster, 10, 1000);

    expect(promotions(harness.journal.entries)).toEqual([]);
    expect(cluster.condition('Degraded')).toMatchObject({ status: 'True', reason: 'TopologyDegraded' });
    expect(JSON.stringify(cluster.status().conditions)).toMatch(/waiting for cache-2 \(position unknown/);
  });

  it('promotes the recorded primary again when it restarts from its AOF, and nobody else (rule 4)', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster();
    await primaryStopsAnswering(harness, cluster);
    harness.redis.restart(cluster.address(0), 'aof');

    await harness.reconcile(cluster);

    expect(promotions(harness.journal.entries)).toEqual([`${cluster.address(0)}:6379`]);
    expect(cluster.status().primaryRecord).toMatchObject({ primary: 'cache-0' });
  });

  it('never gives the role back to a recorded primary that restarted empty', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster();
    await primaryStopsAnswering(harness, cluster);
    harness.redis.restart(cluster.address(0), 'empty');

    await harness.reconcileRepeatedly(cluster, 6, 1000);

    expect(promotions(harness.journal.entries)).toEqual([`${cluster.address(1)}:6379`]);
    expect(cluster.server(0)).toMatchObject({ role: 'replica', primaryHost: cluster.address(1) });
  });
});
