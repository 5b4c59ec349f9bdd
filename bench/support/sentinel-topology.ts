import Redis, { type RedisOptions } from 'ioredis';
import { allocateLoopbackHosts } from '../../test/support/loopback-hosts';
import { RedisServerProcess, TEST_REDIS_PASSWORD, startRedisServers } from '../../test/support/redis-process';
import { waitUntil } from '../../test/support/wait-until';
import { MONITORED_PRIMARY_NAME, RedisSentinelProcess, SENTINEL_PORT } from './sentinel-process';

/** Options of {@link SentinelTopology.start}. */
export interface SentinelTopologyOptions {
  readonly downAfterMilliseconds: number;
  /** @default 10000 */
  readonly failoverTimeoutMilliseconds?: number;
}

/**
 * One primary, two replicas and three Sentinels (quorum 2), every process on its own loopback address in
 * 127.0.4.0/24 with the standard ports — the Debian-packaged Redis Sentinel setup redkite is compared with.
 */
export class SentinelTopology {
  private readonly admins = new Map<string, Redis>();

  private constructor(
    readonly servers: readonly RedisServerProcess[],
    readonly sentinels: readonly RedisSentinelProcess[],
  ) {}

  static async start(options: SentinelTopologyOptions): Promise<SentinelTopology> {
    const hosts = await allocateLoopbackHosts(6, '127.0.4', [6379, SENTINEL_PORT]);
    const [primaryHost, ...replicaHosts] = hosts.slice(0, 3) as [string, string, string];
    const servers: RedisServerProcess[] = [];
    const sentinels: RedisSentinelProcess[] = [];
    try {
      servers.push(...(await startRedisServers([primaryHost])));
      servers.push(...(await startRedisServers(replicaHosts, { replicaOf: { host: primaryHost } })));
      for (const host of hosts.slice(3)) {
        sentinels.push(
          await RedisSentinelProcess.start({
            host,
            primaryHost,
            password: TEST_REDIS_PASSWORD,
            downAfterMilliseconds: options.downAfterMilliseconds,
            failoverTimeoutMilliseconds: options.failoverTimeoutMilliseconds,
          }),
        );
      }
    } catch (error) {
      await Promise.all([...servers, ...sentinels].map((process) => process.stop()));
      throw error;
    }
    const topology = new SentinelTopology(servers, sentinels);
    await topology.waitUntilHealthy(30_000);
    return topology;
  }

  /** The ioredis Sentinel client options an application would use, tuned for fast failover. */
  sentinelClientOptions(): RedisOptions {
    return {
      sentinels: this.sentinels.map((sentinel) => ({ host: sentinel.host, port: SENTINEL_PORT })),
      name: MONITORED_PRIMARY_NAME,
      password: TEST_REDIS_PASSWORD,
      // Fast retries: after the kill the client asks the Sentinels again every 50 ms. (`failoverDetector: true`
      // was tried and dropped: with ioredis 5.11 the client sometimes ended up closed for good after
      // +switch-master, every command failing with "Connection is closed".)
      retryStrategy: () => 50,
      sentinelRetryStrategy: () => 50,
      maxRetriesPerRequest: null,
    };
  }

  /**
   * The server every Sentinel names as primary and that itself reports role master. Right after a failover
   * a Sentinel that has not heard of it yet still names the old primary, hence the wait for agreement.
   */
  async agreedPrimary(timeoutMilliseconds = 30_000): Promise<RedisServerProcess> {
    return waitUntil(
      'the Sentinels agree on a primary that reports role master',
      async () => {
        const hosts = new Set<string>();
        for (const sentinel of this.sentinels) {
          const admin = this.admin(sentinel.host, SENTINEL_PORT);
          const [host] = (await admin.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MONITORED_PRIMARY_NAME)) as string[];
          hosts.add(host!);
        }
        const primary = this.servers.find((server) => hosts.size === 1 && hosts.has(server.host));
        if (primary === undefined) {
          return false;
        }
        const role = await this.admin(primary.host, primary.port, primary.password).info('replication');
        return role.includes('role:master') ? primary : false;
      },
      { timeoutMilliseconds, pollIntervalMilliseconds: 50 },
    );
  }

  /**
   * Waits until every Sentinel names the same primary, that server has both replicas online, and every
   * Sentinel sees both replicas healthy and knows the two other Sentinels; returns the primary.
   * (Sentinels can change their mind after a first promotion, so the settled primary is what counts.)
   */
  async waitUntilHealthy(timeoutMilliseconds: number): Promise<RedisServerProcess> {
    return waitUntil(
      'the Sentinel topology is healthy',
      async () => {
        const primaries = new Set<string>();
        for (const sentinel of this.sentinels) {
          const admin = this.admin(sentinel.host, SENTINEL_PORT);
          const [host] = (await admin.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MONITORED_PRIMARY_NAME)) as string[];
          const replicas = records(await admin.call('SENTINEL', 'REPLICAS', MONITORED_PRIMARY_NAME));
          const peers = records(await admin.call('SENTINEL', 'SENTINELS', MONITORED_PRIMARY_NAME));
          const replicasHealthy =
            replicas.length === this.servers.length - 1 &&
            replicas.every((replica) => replica['flags'] === 'slave' && replica['master-link-status'] === 'ok');
          if (!replicasHealthy || peers.length !== this.sentinels.length - 1) {
            return false;
          }
          primaries.add(host!);
        }
        const primary = this.servers.find((server) => primaries.size === 1 && primaries.has(server.host));
        if (primary === undefined) {
          return false;
        }
        const replication = await this.admin(primary.host, primary.port, primary.password).info('replication');
        const online = (replication.match(/state=online/g) ?? []).length === this.servers.length - 1;
        return replication.includes('role:master') && online ? primary : false;
      },
      { timeoutMilliseconds, pollIntervalMilliseconds: 100 },
    ).catch(async (error: unknown) => {
      throw new Error(`Sentinel topology not healthy: ${await this.describe()}`, { cause: error });
    });
  }

  /** What each Sentinel believes (primary and flags of each replica), for failure messages. */
  async describe(): Promise<string> {
    const views = await Promise.all(
      this.sentinels.map(async (sentinel) => {
        try {
          const admin = this.admin(sentinel.host, SENTINEL_PORT);
          const [host] = (await admin.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', MONITORED_PRIMARY_NAME)) as string[];
          const replicas = records(await admin.call('SENTINEL', 'REPLICAS', MONITORED_PRIMARY_NAME));
          const peers = records(await admin.call('SENTINEL', 'SENTINELS', MONITORED_PRIMARY_NAME));
          const flags = replicas
            .map((replica) => `${replica['ip']}=${replica['flags']}/${replica['master-link-status']}`)
            .join(',');
          return `${sentinel.host}: primary ${host}, replicas ${flags}, ${peers.length} peers`;
        } catch (error) {
          return `${sentinel.host}: ${error instanceof Error ? error.message : String(error)}`;
        }
      }),
    );
    return views.join('; ');
  }

  /** A plain client to `host:port` (cached), e.g. to read keys back from the primary. */
  admin(host: string, port: number, password?: string): Redis {
    const key = `${host}:${port}`;
    let client = this.admins.get(key);
    if (client === undefined) {
      client = new Redis({ host, port, password, lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 1000 });
      client.on('error', () => undefined);
      this.admins.set(key, client);
    }
    return client;
  }

  /** Closes clients and kills every process. */
  async stop(): Promise<void> {
    for (const client of this.admins.values()) {
      client.disconnect();
    }
    this.admins.clear();
    await Promise.all([...this.sentinels, ...this.servers].map((process) => process.stop()));
  }
}

/** SENTINEL REPLICAS/SENTINELS answer with flat `[name, value, ...]` arrays; turns them into records. */
function records(reply: unknown): Record<string, string>[] {
  return (reply as string[][]).map((flat) => {
    const record: Record<string, string> = {};
    for (let index = 0; index + 1 < flat.length; index += 2) {
      record[flat[index]!] = flat[index + 1]!;
    }
    return record;
  });
}
