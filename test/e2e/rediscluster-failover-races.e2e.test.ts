import { E2E_TEST_TIMEOUT_MILLISECONDS, chaos, loadKubeConfig, useTestNamespace, waitFor } from './support';
import { useOperator } from './controller-support/operator-process';
import { RedisClusterApi, condition } from './controller-support/redis-cluster-api';
import { recordClusterHistory } from './controller-support/cluster-history';
import { deleteCluster, readyCluster, recordOf, waitForNewEpoch } from './controller-support/owned-cluster';

jest.setTimeout(6 * E2E_TEST_TIMEOUT_MILLISECONDS);

const config = loadKubeConfig();
const namespace = useTestNamespace('failover-races');
const operatorHandle = useOperator(config, () => namespace.name);
const clusters = new RedisClusterApi(config, () => namespace.name, () => operatorHandle.process.tail());

/** The ordinal of a pod of a cluster, from its name. */
const ordinal = (pod: string): number => Number(pod.slice(pod.lastIndexOf('-') + 1));

describe('failover races against real redis-server pods and the real controller (docs/failover.md)', () => {
  it('keeps every acknowledged write when a replica comes back on an empty volume and the primary restarts before it synced', async () => {
    const { name, status, password, replicas } = await readyCluster(clusters, 'empty-volume');
    const history = await recordClusterHistory(clusters, name, () => password);
    try {
      await history.moreAcknowledged(100, 'writes before the volume loss');
      await chaos.loseVolumes(namespace.name, replicas[0]!);
      await chaos.kill(namespace.name, status.primary!);
      await history.moreAcknowledged(50, 'writes after the restarts');
      await history.verify('empty replica volume and a primary restart');
    } finally {
      await Promise.all(history.writers.map((writer) => writer.stop()));
      await deleteCluster(clusters, name);
    }
  });

  it('never promotes a pod that a scale-down racing the failover removes', async () => {
    const { name, status, password } = await readyCluster(clusters, 'scale-race');
    const before = recordOf(status)!;
    const history = await recordClusterHistory(clusters, name, () => password);
    try {
      await history.moreAcknowledged(100, 'writes before the fault');
      await chaos.freeze(namespace.name, status.primary!);
      try {
        await clusters.patchSpec(name, { replicas: 2 });
        const record = await waitForNewEpoch(clusters, name, before.epoch, 'a failover or switchover while scaling down');
        expect(ordinal(record.primary)).toBeLessThan(2);
      } finally {
        await chaos.thaw(namespace.name, status.primary!);
      }
      await history.moreAcknowledged(50, 'writes after the scale-down');
      await history.verify('scale-down racing a failover');
      expect(ordinal((await clusters.status(name)).primary!)).toBeLessThan(2);
    } finally {
      await Promise.all(history.writers.map((writer) => writer.stop()));
      await deleteCluster(clusters, name);
    }
  });

  it('reports a CONFIG SET that Redis refuses without stopping the rest of the reconcile: failover still happens', async () => {
    const { name, status, password } = await readyCluster(clusters, 'config-refused');
    const before = recordOf(status)!;
    const history = await recordClusterHistory(clusters, name, () => password);
    try {
      await clusters.patchSpec(name, { config: { 'maxmemory-policy': 'not-a-policy' } });
      const refused = await waitFor(async () => {
        const current = await clusters.status(name);
        return condition(current, 'Ready')?.reason === 'ConfigRejected' ? current : undefined;
      }, { description: 'the refused parameter reported in status', timeoutMs: 60_000, intervalMs: 200 });
      expect(condition(refused, 'Ready')?.message).toMatch(/maxmemory-policy/);
      await history.moreAcknowledged(50, 'writes while the parameter is refused');
      await chaos.freeze(namespace.name, status.primary!);
      try {
        await waitForNewEpoch(clusters, name, before.epoch, 'a failover despite the refused parameter');
      } finally {
        await chaos.thaw(namespace.name, status.primary!);
      }
      await history.moreAcknowledged(20, 'writes after the failover');
      await clusters.patchSpec(name, { config: { 'maxmemory-policy': 'allkeys-lru' } });
      await history.verify('a refused CONFIG SET and a failover');
    } finally {
      await Promise.all(history.writers.map((writer) => writer.stop()));
      await deleteCluster(clusters, name);
    }
  });
});
