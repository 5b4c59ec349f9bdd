// client-node is ESM-only; jest cannot load it, Node can (see nativeRequire). The reconciler imports the runtime's index.
jest.mock('@kubernetes/client-node', () =>
  jest.requireActual<typeof import('../runtime/support/native-require')>('../runtime/support/native-require').nativeRequire('@kubernetes/client-node'),
);

import type { PodObject } from '../../../operator/rediscluster/cluster-object';
import { ReconcilerHarness } from './fakes/reconciler-harness';
import { FAILOVER_AFTER_MILLISECONDS, primaryStopsAnswering } from './fakes/scenarios';

describe('RedisClusterReconciler repairs that must converge (issue item 7)', () => {
  it('reconnects a replica whose link to the right primary stayed down past 30 s, with reconnectIfAlreadyFollowing', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster();
    await harness.reconcile(cluster);
    cluster.server(2).stuckLinkDownSeconds = 45;

    const { calls } = await harness.reconcileRecorded(cluster);

    const replicaOf = harness.journal.redisCommands(calls).filter((call) => call.command === 'REPLICAOF');
    expect(replicaOf).toEqual([expect.objectContaining({ address: `${cluster.address(2)}:6379`, details: { primaryHost: cluster.address(0), primaryPort: 6379, reconnectIfAlreadyFollowing: true } })]);
    expect(cluster.server(2).stuckLinkDownSeconds).toBeUndefined();
  });

  it('sends no further REPLICAOF once the reconnected link is up', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster();
    await harness.reconcile(cluster);
    cluster.server(2).stuckLinkDownSeconds = 45;
    await harness.reconcile(cluster);

    harness.journal.markNow();
    await harness.reconcileRepeatedly(cluster, 3, 1000);

    expect(harness.journal.redisCommands(harness.journal.sinceMark())).toEqual([]);
  });

  it('leaves a replica whose link has been down for less than 30 s alone', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster();
    await harness.reconcile(cluster);
    cluster.server(2).stuckLinkDownSeconds = 10;

    const { calls } = await harness.reconcileRecorded(cluster);

    expect(harness.journal.redisCommands(calls)).toEqual([]);
  });

  it('writes the status with a ConfigRejected problem when a CONFIG SET fails, instead of aborting the pass', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster({ spec: { config: { 'maxmemory-policy': 'allkeys-lru' } } });
    cluster.server(1).refusedConfig.set('maxmemory-policy', 'ERR CONFIG SET failed (possibly related to argument \'maxmemory-policy\') - argument(s) must be one of the following');

    await expect(harness.reconcile(cluster)).resolves.toBeDefined();

    expect(cluster.condition('Ready')).toMatchObject({ status: 'False', reason: 'ConfigRejected' });
    expect(JSON.stringify(cluster.status().conditions)).toContain('cache-1');
    expect(harness.journal.events().map((event) => event.reason)).toContain('ConfigRejected');
    // The members that accepted it have it.
    expect(cluster.server(0).config.get('maxmemory-policy')).toBe('allkeys-lru');
    expect(cluster.server(2).config.get('maxmemory-policy')).toBe('allkeys-lru');
  });

  it('writes the status with a ConfigRejected problem when the CONFIG SET of min-replicas-to-write fails', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster();
    cluster.server(1).config.set('min-replicas-to-write', '0');
    cluster.server(1).refusedConfig.set('min-replicas-to-write', 'ERR CONFIG SET failed');

    await expect(harness.reconcile(cluster)).resolves.toBeDefined();

    expect(cluster.condition('Ready')).toMatchObject({ status: 'False', reason: 'ConfigRejected' });
  });

  it('keeps Ready and Available on the pass where a suspect primary answers again (an event-only plan)', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster();
    await primaryStopsAnswering(harness, cluster);
    cluster.server(0).reachability = 'serving';
    harness.clocks.advance(500);

    const { calls } = await harness.reconcileRecorded(cluster);

    expect(harness.journal.events(calls).map((event) => event.reason)).toEqual(['PrimaryRecovered']);
    expect(cluster.condition('Ready')).toMatchObject({ status: 'True' });
    expect(cluster.condition('Available')).toMatchObject({ status: 'True' });
    expect(cluster.condition('Progressing')).toMatchObject({ status: 'False' });
  });

  it('reports an established cluster whose every member is down as Degraded, never Provisioning', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster();
    await harness.reconcile(cluster);
    for (const ordinal of [0, 1, 2]) cluster.stopAnswering(ordinal);

    const phases: Array<string | undefined> = [];
    for (let pass = 0; pass < 6; pass += 1) {
      await harness.reconcile(cluster);
      phases.push(cluster.status().phase);
      harness.clocks.advance(FAILOVER_AFTER_MILLISECONDS / 2);
    }

    expect(new Set(phases)).toEqual(new Set(['Degraded']));
  });

  it('reports an established cluster whose pods all lost their address as Degraded, never Provisioning', async () => {
    const harness = new ReconcilerHarness();
    const cluster = harness.addCluster();
    await harness.reconcile(cluster);
    for (const ordinal of [0, 1, 2]) {
      harness.kube.update<PodObject>(cluster.podReference(ordinal), (pod) => {
        (pod as { status: PodObject['status'] }).status = { phase: 'Pending', conditions: [{ type: 'Ready', status: 'False' }] };
      });
    }

    await harness.reconcileRepeatedly(cluster, 3, FAILOVER_AFTER_MILLISECONDS);

    expect(cluster.status().phase).toBe('Degraded');
  });
});
