import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManagedRedisProcess, requireRedisBinary } from '../../test/support/redis-process';

/** The port every Sentinel listens on (each has its own loopback address). */
export const SENTINEL_PORT = 26379;

/** The name Sentinel monitors the primary under. */
export const MONITORED_PRIMARY_NAME = 'redkite-baseline';

/** Options of {@link RedisSentinelProcess.start}. */
export interface RedisSentinelOptions {
  /** Loopback address the Sentinel binds to, announces and connects from. */
  readonly host: string;
  readonly primaryHost: string;
  /** @default 6379 */
  readonly primaryPort?: number;
  readonly password: string;
  /** Agreeing Sentinels needed to mark the primary objectively down. @default 2 */
  readonly quorum?: number;
  /** Silence after which a Sentinel considers the primary subjectively down. */
  readonly downAfterMilliseconds: number;
  /** @default 10000 (Redis' default is 180000) */
  readonly failoverTimeoutMilliseconds?: number;
}

/** A real `redis-sentinel` process monitoring one primary. */
export class RedisSentinelProcess extends ManagedRedisProcess {
  private constructor(host: string, directory: string, configFile: string) {
    super('redis-sentinel', host, SENTINEL_PORT, () => [configFile], directory);
  }

  /**
   * Writes a fresh config (Sentinel rewrites its own file, so each start gets a new one) and starts the
   * process. `announce-ip` and `bind-source-addr` make every peer see it under its own loopback address.
   */
  static async start(options: RedisSentinelOptions): Promise<RedisSentinelProcess> {
    requireRedisBinary('redis-sentinel');
    const directory = mkdtempSync(join(tmpdir(), 'redkite-sentinel-'));
    const configFile = join(directory, 'sentinel.conf');
    writeFileSync(
      configFile,
      [
        `bind ${options.host}`,
        `port ${SENTINEL_PORT}`,
        `bind-source-addr ${options.host}`,
        `sentinel announce-ip ${options.host}`,
        `dir ${directory}`,
        'logfile ""',
        'loglevel warning',
        `sentinel monitor ${MONITORED_PRIMARY_NAME} ${options.primaryHost} ${options.primaryPort ?? 6379} ${options.quorum ?? 2}`,
        `sentinel auth-pass ${MONITORED_PRIMARY_NAME} ${options.password}`,
        `sentinel down-after-milliseconds ${MONITORED_PRIMARY_NAME} ${options.downAfterMilliseconds}`,
        `sentinel failover-timeout ${MONITORED_PRIMARY_NAME} ${options.failoverTimeoutMilliseconds ?? 10_000}`,
        `sentinel parallel-syncs ${MONITORED_PRIMARY_NAME} 1`,
        '',
      ].join('\n'),
    );
    const sentinel = new RedisSentinelProcess(options.host, directory, configFile);
    await sentinel.spawn();
    return sentinel;
  }
}
