import Redis from 'ioredis';
import { parseReplicationInfo } from '../../operator/redis/info-parser';
import { allocateLoopbackHosts, releaseLoopbackHosts } from '../../test/support/loopback-hosts';
import { startRedisServers, type RedisServerProcess } from '../../test/support/redis-process';
import { waitUntil } from '../../test/support/wait-until';

/**
 * The replication settings redkite's redis.conf sets (src/workload/redis-conf.ts) that bear on a switchover, on
 * top of what every test server gets (repl-ping-replica-period 1, repl-diskless-sync-delay 0).
 */
export const SWITCHOVER_SERVER_CONFIG: Readonly<Record<string, string>> = {
  'repl-diskless-sync': 'yes',
  'min-replicas-to-write': '1',
  'min-replicas-max-lag': '10',
};

/** One primary and two replicas (real redis-server processes on their own loopback addresses), wired with replicaof. */
export class SwitchoverTopology {
  private readonly admins: Redis[];

  private constructor(
    readonly servers: readonly RedisServerProcess[],
    private readonly hosts: readonly string[],
  ) {
    this.admins = servers.map((server) => {
      const client = new Redis({ host: server.host, port: server.port, password: server.password, lazyConnect: true, maxRetriesPerRequest: 1 });
      client.on('error', () => undefined);
      return client;
    });
  }

  static async start(prefix: string): Promise<SwitchoverTopology> {
    const hosts = await allocateLoopbackHosts(3, prefix);
    const [primaryHost, ...replicaHosts] = hosts as [string, string, string];
    const primary = await startRedisServers([primaryHost], { config: SWITCHOVER_SERVER_CONFIG });
    const replicas = await startRedisServers(replicaHosts, { config: SWITCHOVER_SERVER_CONFIG, replicaOf: { host: primaryHost } }).catch(
      async (error: unknown) => {
        await primary[0]!.stop();
        throw error;
      },
    );
    const topology = new SwitchoverTopology([...primary, ...replicas], hosts);
    await topology.waitUntilSettled(30_000);
    return topology;
  }

  /** New clients to every server (for a writer), in the order of {@link servers}. */
  clients(): Redis[] {
    return this.servers.map((server) => {
      const client = new Redis({ host: server.host, port: server.port, password: server.password });
      client.on('error', () => undefined);
      return client;
    });
  }

  /** See {@link waitUntilReplicationSettled}; returns the primary's index. */
  waitUntilSettled(timeoutMilliseconds: number): Promise<number> {
    return waitUntilReplicationSettled(this.admins, this.servers.map((server) => server.host), timeoutMilliseconds);
  }

  /** A plain client to server `index`. */
  admin(index: number): Redis {
    return this.admins[index]!;
  }

  async stop(): Promise<void> {
    this.admins.forEach((admin) => admin.disconnect());
    await Promise.all(this.servers.map((server) => server.stop()));
    releaseLoopbackHosts(this.hosts);
  }
}

/**
 * Waits until exactly one of the servers is primary, every other follows it with its link up, the primary lists
 * them all online, and each has applied a write made on the primary for this check; returns the primary's index.
 * The write matters: after a diskless full sync Redis 7.0 streams to the new replica only once the replica's first
 * ACK arrives (up to a second later), and a primary still at offset 0 would otherwise look caught up.
 *
 * @param admins one client per server, in the order of `hosts`.
 */
export async function waitUntilReplicationSettled(admins: readonly Redis[], hosts: readonly string[], timeoutMilliseconds: number): Promise<number> {
  const read = () => Promise.all(admins.map(async (admin) => parseReplicationInfo(await admin.info('replication'))));
  let checked: { primary: number; offset: number } | undefined;
  return waitUntil(
    `one primary with ${hosts.length - 1} replicas online and caught up`,
    async () => {
      const infos = await read();
      const primaries = infos.flatMap((info, index) => (info.role === 'primary' ? [index] : []));
      if (primaries.length !== 1) return false;
      const primaryIndex = primaries[0]!;
      const online = infos[primaryIndex]!.connectedReplicas.filter((replica) => replica.state === 'online').length;
      const replicasFollow = infos.every(
        (info, index) => index === primaryIndex || (info.primaryHost === hosts[primaryIndex] && info.primaryLinkUp && !info.syncInProgress),
      );
      if (online !== hosts.length - 1 || !replicasFollow) return false;
      if (checked?.primary !== primaryIndex) {
        // min-replicas-to-write may refuse the write while a replica attaches: then the next poll tries again.
        await admins[primaryIndex]!.incr('switchover-topology:settled');
        checked = { primary: primaryIndex, offset: parseReplicationInfo(await admins[primaryIndex]!.info('replication')).replicationStreamOffset };
      }
      const offset = checked.offset;
      return infos.every((info, index) => index === primaryIndex || (info.appliedOffset ?? 0) >= offset) ? primaryIndex : false;
    },
    { timeoutMilliseconds, pollIntervalMilliseconds: 10 },
  );
}
