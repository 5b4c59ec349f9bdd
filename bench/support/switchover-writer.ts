import type Redis from 'ioredis';

/** Gives the writer a client connected to (what it believes is) the primary. */
export interface PrimaryRoute {
  /** The client for the next write; may re-resolve the primary. */
  current(): Promise<Redis>;
  /** A write failed: resolve the primary again before the next one (a Sentinel client does this itself). */
  failed(error: unknown): void;
}

/** Options of {@link SwitchoverWriter.start}. */
export interface SwitchoverWriterOptions {
  readonly route: PrimaryRoute;
  /** Prefix of every key, unique per run. */
  readonly keyPrefix: string;
  /** `WAIT 1 <ms>`. */
  readonly waitTimeoutMilliseconds: number;
}

/**
 * `SET k<i> v` then `WAIT 1 <ms>`, one write at a time, as fast as the primary answers. A write counts as
 * acknowledged when WAIT saw one replica; its acknowledgement time (monotonic clock) is what the pause figures are
 * computed from. Kept in flat arrays: a run acknowledges hundreds of thousands of writes.
 */
export class SwitchoverWriter {
  readonly acknowledgedKeys: string[] = [];
  readonly acknowledgedValues: string[] = [];
  /** `performance.now()` when each acknowledged write's WAIT returned, ascending. */
  readonly acknowledgedAt: number[] = [];
  /** Write errors by message (first word of the reply, e.g. READONLY), for the report. */
  readonly errors = new Map<string, number>();
  unacknowledgedWrites = 0;
  private stopping = false;
  private readonly loop: Promise<void>;

  private constructor(private readonly options: SwitchoverWriterOptions) {
    this.loop = this.run();
  }

  static start(options: SwitchoverWriterOptions): SwitchoverWriter {
    return new SwitchoverWriter(options);
  }

  get errorCount(): number {
    return [...this.errors.values()].reduce((sum, count) => sum + count, 0);
  }

  /** Stops after the write in flight. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.loop;
  }

  private async run(): Promise<void> {
    const { route, keyPrefix, waitTimeoutMilliseconds } = this.options;
    for (let sequence = 0; !this.stopping; sequence++) {
      const key = `${keyPrefix}:${sequence}`;
      const value = String(sequence);
      try {
        const client = await route.current();
        await client.set(key, value);
        const acknowledgements = Number(await client.wait(1, waitTimeoutMilliseconds));
        if (acknowledgements >= 1) {
          this.acknowledgedAt.push(performance.now());
          this.acknowledgedKeys.push(key);
          this.acknowledgedValues.push(value);
        } else {
          this.unacknowledgedWrites++;
        }
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        const kind = message.split(' ', 1)[0] ?? message;
        this.errors.set(kind, (this.errors.get(kind) ?? 0) + 1);
        route.failed(error);
        // Not a busy spin while nothing is writable, and not a sleep that would dominate a 10 ms pause either.
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    }
  }
}

/**
 * Follows the primary the way a client without Sentinel can: after an error (-READONLY from a demoted primary,
 * -NOREPLICAS from one whose replicas are still attaching) it asks every server `ROLE` and writes to the one that
 * answers `master`.
 */
export class RoleFollowingRoute implements PrimaryRoute {
  private primary: Redis | undefined;

  constructor(private readonly servers: readonly Redis[]) {}

  async current(): Promise<Redis> {
    if (this.primary === undefined) {
      this.primary = await this.resolve();
    }
    return this.primary;
  }

  failed(): void {
    this.primary = undefined;
  }

  /** The first server to answer `master`: one slow or reconnecting connection does not hold the writer up. */
  private resolve(): Promise<Redis> {
    return new Promise((resolve, reject) => {
      let pending = this.servers.length;
      for (const server of this.servers) {
        (server.call('ROLE') as Promise<unknown[]>)
          .then((role) => {
            if (role[0] === 'master') resolve(server);
          }, () => undefined)
          .finally(() => {
            if (--pending === 0) reject(new Error('NOPRIMARY no server reports role master'));
          });
      }
    });
  }
}

/** An ioredis Sentinel client: it finds the primary by asking the Sentinels whenever it reconnects. */
export class SentinelRoute implements PrimaryRoute {
  constructor(private readonly client: Redis) {}

  current(): Promise<Redis> {
    return Promise.resolve(this.client);
  }

  failed(): void {
    // The client reconnects (and asks the Sentinels again) by itself; see reconnectOnError where it is created.
  }
}

/**
 * Reads every acknowledged key back from `reader` (MGET in batches); returns the indexes (into the writer's
 * arrays) of those missing or holding another value: acknowledged writes the switchovers lost.
 */
export async function findLostWrites(reader: Redis, writer: SwitchoverWriter, batchSize = 1000): Promise<number[]> {
  const lost: number[] = [];
  for (let start = 0; start < writer.acknowledgedKeys.length; start += batchSize) {
    const keys = writer.acknowledgedKeys.slice(start, start + batchSize);
    const values = await reader.mget(...keys);
    values.forEach((value, index) => {
      if (value !== writer.acknowledgedValues[start + index]) lost.push(start + index);
    });
  }
  return lost;
}
