import { E2E_TEST_TIMEOUT_MILLISECONDS, chaos, k8s, loadKubeConfig, useTestNamespace, waitFor } from './support';
import { useOperator } from './controller-support/operator-process';
import { RedisClusterApi, condition } from './controller-support/redis-cluster-api';
import { recordClusterHistory } from './controller-support/cluster-history';
import { deleteCluster, readyCluster, recordOf, waitForNewEpoch } from './controller-support/owned-cluster';

jest.setTimeout(6 * E2E_TEST_TIMEOUT_MILLISECONDS);

const config = loadKubeConfig();
const namespace = useTestNamespace('controller-faults');
// The controller runs as a harness identity: its own source address (partitions from it alone) and apiserver proxy.
const operatorHandle = useOperator(config, () => namespace.name, { asControllerIdentity: true });
const clusters = new RedisClusterApi(config, () => namespace.name, () => operatorHandle.process.tail());

async function eventCount(cluster: string, reason: string): Promise<number> {
  const events = await config.makeApiClient(k8s.EventsV1Api).listNamespacedEvent({ namespace: namespace.name });
  return events.items.filter((event) => event.regarding?.name === cluster && event.reason === reason).reduce((sum, event) => sum + Math.max(1, event.series?.count ?? 1), 0);
}

const identity = () => operatorHandle.process.identity!;

describe('faults between the controller and the rest (docs/failover.md, I4–I5)', () => {
  it('fails over exactly once while its watches are stalled (it never decides from a cache older than its own write)', async () => {
    const { name, status, password } = await readyCluster(clusters, 'watch-stall');
    const before = recordOf(status)!;
    const history = await recordClusterHistory(clusters, name, () => password);
    try {
      await history.moreAcknowledged(100, 'writes before the stall');
      await chaos.stallWatches(identity());
      try {
        await chaos.freeze(namespace.name, status.primary!);
        const failedOver = await waitForNewEpoch(clusters, name, before.epoch, 'a failover while the watches are stalled');
        expect(failedOver.epoch).toBe(before.epoch + 1);
        await history.moreAcknowledged(20, 'writes on the new primary while the watches are still stalled');
        await chaos.thaw(namespace.name, status.primary!);
        // Longer than several detection periods: a controller deciding from its stale cache would fail over again.
        await waitFor(async () => (await clusters.podsLabelledPrimary(name)).length === 1 && (await eventCount(name, 'StalePrimaryDemoted')) > 0, {
          description: 'the thawed old primary demoted while the watches are still stalled',
          timeoutMs: 60_000,
        });
      } finally {
        await chaos.thaw(namespace.name, status.primary!);
        await chaos.resumeWatches(identity());
      }
      await history.moreAcknowledged(20, 'writes after the watches resumed');
      await history.verify('watch stall across a failover');
      expect(recordOf(await clusters.status(name))!.epoch).toBe(before.epoch + 1);
      expect(await eventCount(name, 'PrimaryFailedOver')).toBe(1);
    } finally {
      await Promise.all(history.writers.map((writer) => writer.stop()));
      await deleteCluster(clusters, name);
    }
  });

  it('does not fail over a primary that only the controller cannot reach (a replica still hears from it)', async () => {
    const { name, status, password } = await readyCluster(clusters, 'controller-cut');
    const before = recordOf(status)!;
    const history = await recordClusterHistory(clusters, name, () => password);
    try {
      await history.moreAcknowledged(100, 'writes before the partition');
      const partition = await chaos.partitionFromController(namespace.name, status.primary!, identity());
      try {
        await waitFor(async () => condition(await clusters.status(name), 'Degraded')?.message.includes('still hears from it'), {
          description: 'the controller holding back because a replica still hears from the primary',
          timeoutMs: 60_000,
          intervalMs: 200,
        });
        await history.moreAcknowledged(50, 'writes through the partition: the primary serves its clients');
        expect(recordOf(await clusters.status(name))).toEqual(expect.objectContaining({ primary: before.primary, epoch: before.epoch }));
      } finally {
        await chaos.heal(partition);
      }
      await history.verify('controller-only partition');
    } finally {
      await Promise.all(history.writers.map((writer) => writer.stop()));
      await deleteCluster(clusters, name);
    }
  });

  it('fails over from a primary isolated from everyone, with a client still holding its connection, and demotes it when the network heals', async () => {
    const { name, status, password, replicas } = await readyCluster(clusters, 'isolated');
    const before = recordOf(status)!;
    const history = await recordClusterHistory(clusters, name, () => password, { connections: ['reconnect', 'hold'] });
    const partitions = [];
    try {
      await history.moreAcknowledged(100, 'writes before the isolation');
      for (const replica of replicas) partitions.push(await chaos.partitionPods(namespace.name, status.primary!, replica));
      partitions.push(await chaos.partitionFromController(namespace.name, status.primary!, identity()));
      const failedOver = await waitForNewEpoch(clusters, name, before.epoch, 'a failover away from the isolated primary');
      expect(failedOver.primary).not.toBe(status.primary);
      await history.moreAcknowledged(1, 'the reconnecting writer on the new primary', 'reconnecting');
      for (const partition of partitions.splice(0)) await chaos.heal(partition);
      await history.moreAcknowledged(20, 'writes after the network healed', 'reconnecting');
      await history.verify('isolated primary, held connection');
    } finally {
      for (const partition of partitions) await chaos.heal(partition);
      await Promise.all(history.writers.map((writer) => writer.stop()));
      await deleteCluster(clusters, name);
    }
  });
});
