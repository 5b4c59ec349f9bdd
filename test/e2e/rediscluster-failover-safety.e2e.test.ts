import Redis from 'ioredis';
import { E2E_TEST_TIMEOUT_MILLISECONDS, chaos, loadKubeConfig, useTestNamespace, waitFor } from './support';
import { useOperator } from './controller-support/operator-process';
import { RedisClusterApi, condition } from './controller-support/redis-cluster-api';
import { recordClusterHistory } from './controller-support/cluster-history';
import { deleteCluster as deleteOwnedCluster, readyCluster as ownedCluster, recordOf, waitForNewEpoch } from './controller-support/owned-cluster';

jest.setTimeout(6 * E2E_TEST_TIMEOUT_MILLISECONDS);

const config = loadKubeConfig();
const namespace = useTestNamespace('failover-safety');
const operatorHandle = useOperator(config, () => namespace.name);
const clusters = new RedisClusterApi(config, () => namespace.name, () => operatorHandle.process.tail());

const readyCluster = async (name: string) => ownedCluster(clusters, name);
const deleteCluster = (name: string) => deleteOwnedCluster(clusters, name);

/** Waits until the pod's replication link is down (INFO replication). */
async function waitLinkDown(client: Redis, pod: string): Promise<void> {
  await waitFor(async () => (await client.info('replication')).includes('master_link_status:down'), { description: `${pod}'s replication link down` });
}

describe('failover safety against real redis-server pods and the real controller (docs/failover.md)', () => {
  it('loses no acknowledged write when the primary and its in-sync replica crash together and restart from AOF while the third replica lags', async () => {
    const name = 'aof-double-crash';
    const { status, password, replicas } = await readyCluster(name);
    const [inSync, lagging] = replicas as [string, string];
    const history = await recordClusterHistory(clusters, name, () => password);
    const laggingClient = await clusters.connectToPod(name, lagging);
    try {
      await history.moreAcknowledged(100, 'writes before the lagging replica is cut off');
      // Cut the third replica off: it cannot authenticate to its primary any more, so it keeps a stale position.
      await laggingClient.config('SET', 'masterauth', 'not-the-password');
      await laggingClient.call('CLIENT', 'KILL', 'TYPE', 'master');
      await waitLinkDown(laggingClient, lagging);
      await history.moreAcknowledged(200, 'writes only the primary and the in-sync replica hold');
      await Promise.all([chaos.kill(namespace.name, status.primary!), chaos.kill(namespace.name, inSync)]);
      // Both restart from AOF with an unknown replication position; the stale replica must not win.
      const serving = await waitFor(async () => {
        const current = await clusters.status(name);
        return condition(current, 'Available')?.status === 'True' ? current : undefined;
      }, { description: 'a writable primary again after the double crash', timeoutMs: 120_000, intervalMs: 200 });
      expect(serving.primary).not.toBe(lagging);
      await laggingClient.config('SET', 'masterauth', password);
      await history.moreAcknowledged(50, 'writes after the double crash');
      const result = await history.verify('AOF double crash');
      expect(result.acknowledged).toBeGreaterThan(300);
    } finally {
      laggingClient.disconnect();
      await Promise.all(history.writers.map((writer) => writer.stop()));
      await deleteCluster(name);
    }
  });

  it('fails over from a frozen primary without two writable primaries, while a client holds its connection to the old primary across the thaw', async () => {
    const name = 'frozen-held';
    const { status, password } = await readyCluster(name);
    const before = recordOf(status)!;
    const history = await recordClusterHistory(clusters, name, () => password, { connections: ['reconnect', 'hold'] });
    try {
      await history.moreAcknowledged(100, 'writes before the freeze');
      await chaos.freeze(namespace.name, status.primary!);
      try {
        const failedOver = await waitForNewEpoch(clusters, name, before.epoch, `a failover away from frozen ${status.primary}`);
        expect(failedOver.primary).not.toBe(status.primary);
        await waitFor(() => history.writers[0]!.acknowledged.some((write) => write.acknowledgedAt > Date.now() - 1000), { description: 'acknowledged writes on the new primary', timeoutMs: 60_000 });
      } finally {
        await chaos.thaw(namespace.name, status.primary!);
      }
      await history.moreAcknowledged(1, 'the reconnecting writer writes after the thaw', 'reconnecting');
      await history.verify('frozen primary, held connection');
    } finally {
      await Promise.all(history.writers.map((writer) => writer.stop()));
      await deleteCluster(name);
    }
  });

  it('does not fail over while the primary and one replica are frozen (that replica may hold acknowledged writes), and loses nothing once both thaw', async () => {
    const name = 'frozen-pair';
    const { status, password, replicas } = await readyCluster(name);
    const before = recordOf(status)!;
    const frozenReplica = replicas[0]!;
    const history = await recordClusterHistory(clusters, name, () => password);
    try {
      await history.moreAcknowledged(100, 'writes before the freeze');
      await Promise.all([chaos.freeze(namespace.name, status.primary!), chaos.freeze(namespace.name, frozenReplica)]);
      try {
        const waiting = await waitFor(async () => {
          const current = await clusters.status(name);
          return condition(current, 'Degraded')?.message.includes(`waiting for ${frozenReplica}`) ? current : undefined;
        }, { description: `the controller waiting for frozen ${frozenReplica} instead of failing over`, timeoutMs: 60_000, intervalMs: 200 });
        expect(recordOf(waiting)).toEqual(before);
      } finally {
        await Promise.all([chaos.thaw(namespace.name, status.primary!), chaos.thaw(namespace.name, frozenReplica)]);
      }
      await history.moreAcknowledged(50, 'writes after the thaw');
      await history.verify('frozen primary and replica');
    } finally {
      await Promise.all(history.writers.map((writer) => writer.stop()));
      await deleteCluster(name);
    }
  });

  it('never fails over because of a password change: the new password is added beside the old on every pod, and nothing is lost while the pods restart one at a time', async () => {
    const name = 'password-change';
    const { status, password } = await readyCluster(name);
    const before = recordOf(status)!;
    let currentPassword = password;
    const history = await recordClusterHistory(clusters, name, () => currentPassword);
    try {
      await history.moreAcknowledged(100, 'writes before the password change');
      const newPassword = `${password}-rotated`;
      await clusters.setPassword(name, newPassword);
      // Phase one: every running pod accepts the new password as well as the old one, without a restart.
      for (const pod of [0, 1, 2].map((ordinal) => `${name}-${ordinal}`)) {
        await waitFor(async () => {
          const accepts = async (candidate: string) => {
            const client = new Redis({ host: await clusters.podIp(pod), port: 6379, password: candidate, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1000 });
            client.on('error', () => undefined);
            try {
              await client.connect();
              return (await client.ping()) === 'PONG';
            } catch {
              return false;
            } finally {
              client.disconnect();
            }
          };
          return (await accepts(newPassword)) && (await accepts(password));
        }, { description: `${pod} accepting both the old and the new password`, timeoutMs: 60_000, intervalMs: 500 });
      }
      expect(recordOf(await clusters.status(name))).toEqual(expect.objectContaining({ primary: before.primary, epoch: before.epoch }));
      currentPassword = newPassword;
      // Replicas first, then the primary: each pod restarts with the new password from the Secret.
      for (const pod of [`${name}-2`, `${name}-1`, `${name}-0`].sort((a, b) => Number(a === status.primary) - Number(b === status.primary))) {
        await chaos.deletePod(namespace.name, pod);
        await waitFor(async () => (await clusters.pods(name)).some((candidate) => candidate.metadata?.name === pod && !candidate.metadata.deletionTimestamp && candidate.status?.containerStatuses?.[0]?.ready === true), {
          description: `${pod} back after its restart`,
          timeoutMs: 120_000,
        });
      }
      const result = await history.verify('password change with pods restarted one at a time');
      expect(result.acknowledged).toBeGreaterThan(100);
    } finally {
      await Promise.all(history.writers.map((writer) => writer.stop()));
      await deleteCluster(name);
    }
  });
});
