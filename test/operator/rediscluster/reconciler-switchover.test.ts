// client-node is ESM-only; jest cannot load it, Node can (see nativeRequire). The reconciler imports the runtime's index.
jest.mock('@kubernetes/client-node', () =>
  jest.requireActual<typeof import('../runtime/support/native-require')>('../runtime/support/native-require').nativeRequire('@kubernetes/client-node'),
);

import type { ClusterFixture } from './fakes/cluster-fixture';
import { ReconcilerHarness } from './fakes/reconciler-harness';
import { recordsWritten } from './fakes/scenarios';

const TARGET_LAGS = { code: 'target-not-caught-up', reason: 'target reached offset 4950 of 5000 within 5000 ms' } as const;

/** A cluster scaled down from 3 to 2 pods whose primary is the pod going away (cache-2): a switchover is due. */
function scaledDownAwayFromPrimary(harness: ReconcilerHarness): ClusterFixture {
  return harness.addCluster({ pods: 3, primary: 2, spec: { replicas: 2 } });
}

function switchovers(harness: ReconcilerHarness): number {
  return harness.journal.redisCommands().filter((call) => call.command === 'SWITCHOVER').length;
}

describe('RedisClusterReconciler switchovers', () => {
  it('switches the primary over to a pod that stays before a scale-down removes it', async () => {
    const harness = new ReconcilerHarness();
    const cluster = scaledDownAwayFromPrimary(harness);

    await harness.reconcile(cluster);

    expect(cluster.server(0).role).toBe('primary');
    expect(cluster.server(2)).toMatchObject({ role: 'replica', primaryHost: cluster.address(0) });
    expect(cluster.status().primaryRecord).toMatchObject({ primary: 'cache-0', epoch: 2 });
    expect(cluster.labelledPrimaries()).toEqual(['cache-0']);
  });

  it('records the switchover target before the switchover starts (I5)', async () => {
    const harness = new ReconcilerHarness();
    const cluster = scaledDownAwayFromPrimary(harness);

    await harness.reconcile(cluster);

    const entries = harness.journal.entries;
    const record = entries.findIndex((entry) => recordsWritten([entry]).some((written) => written.primary === 'cache-0' && written.epoch === 2));
    const switchover = entries.findIndex((entry) => entry.system === 'redis' && entry.command === 'SWITCHOVER');
    expect(record).toBeGreaterThanOrEqual(0);
    expect(switchover).toBeGreaterThan(record);
  });

  it('records the old primary again (epoch + 1) when a switchover aborts', async () => {
    const harness = new ReconcilerHarness();
    const cluster = scaledDownAwayFromPrimary(harness);
    harness.redis.switchoverAborts = TARGET_LAGS;

    await harness.reconcile(cluster);

    expect(recordsWritten(harness.journal.entries)).toEqual([
      { primary: 'cache-0', epoch: 2 },
      { primary: 'cache-2', epoch: 3 },
    ]);
    expect(cluster.status().primaryRecord).toMatchObject({ primary: 'cache-2', epoch: 3 });
    expect(harness.journal.events().map((event) => event.reason)).toContain('SwitchoverAborted');
  });

  it('does not retry an aborted switchover on the next pass', async () => {
    const harness = new ReconcilerHarness();
    const cluster = scaledDownAwayFromPrimary(harness);
    harness.redis.switchoverAborts = TARGET_LAGS;
    await harness.reconcile(cluster);

    await harness.reconcileRepeatedly(cluster, 9, 1000);

    expect(switchovers(harness)).toBe(1);
    expect(cluster.condition('Progressing')).toMatchObject({ status: 'True', reason: 'SwitchoverBackoff' });
  });

  it('retries an aborted switchover after 10 s, then after twice as long', async () => {
    const harness = new ReconcilerHarness();
    const cluster = scaledDownAwayFromPrimary(harness);
    harness.redis.switchoverAborts = TARGET_LAGS;
    await harness.reconcile(cluster);

    harness.clocks.advance(10_000);
    await harness.reconcile(cluster);
    const afterFirstBackoff = switchovers(harness);
    harness.clocks.advance(19_000);
    await harness.reconcile(cluster);
    const beforeSecondBackoffEnds = switchovers(harness);
    harness.clocks.advance(1_000);
    await harness.reconcile(cluster);

    expect([afterFirstBackoff, beforeSecondBackoffEnds, switchovers(harness)]).toEqual([2, 2, 3]);
  });

  it('does not retry the aborted switchover of a Terminating primary on the next pass', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster();
    await harness.reconcile(cluster);
    cluster.markTerminating(0);
    harness.redis.switchoverAborts = TARGET_LAGS;

    await harness.reconcileRepeatedly(cluster, 5, 1000);

    expect(switchovers(harness)).toBe(1);
    expect(cluster.status().primaryRecord).toMatchObject({ primary: 'cache-0' });
  });

  it('switches a Terminating primary over to a linked replica', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster();
    await harness.reconcile(cluster);
    cluster.markTerminating(0);

    await harness.reconcile(cluster);

    expect(cluster.server(1).role).toBe('primary');
    expect(cluster.status().primaryRecord).toMatchObject({ primary: 'cache-1', epoch: 2 });
    expect(cluster.labelledPrimaries()).toEqual(['cache-1']);
  });
});
