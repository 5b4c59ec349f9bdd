import type Redis from 'ioredis';

/** Options of {@link AcknowledgedWriter.start}. */
export interface AcknowledgedWriterOptions {
  /** A plain or Sentinel ioredis client; the writer does not close it. */
  readonly client: Redis;
  /** Prefix of every key written, so several writers (or trials) never collide. @default 'ack' */
  readonly keyPrefix?: string;
  /** Replicas that must acknowledge each write (`WAIT <replicas> <ms>`). @default 1 */
  readonly replicas?: number;
  /** Timeout of each `WAIT`. @default 300 */
  readonly waitTimeoutMilliseconds?: number;
  /** Pause after a failed write, so a dead primary does not turn the loop into a busy spin. @default 10 */
  readonly pauseAfterErrorMilliseconds?: number;
}

/** A write that `WAIT` confirmed on enough replicas. */
export interface AcknowledgedWrite {
  readonly key: string;
  readonly value: string;
  /** When the SET was sent (epoch ms). */
  readonly startedAt: number;
  /** When WAIT returned (epoch ms). */
  readonly acknowledgedAt: number;
}

/** A failed SET or WAIT. */
export interface WriteError {
  readonly at: number;
  readonly message: string;
}

/**
 * Writes `SET key value` then `WAIT replicas ms` in a loop, one write at a time. A key counts as acknowledged
 * only when WAIT reported at least `replicas` replicas: that is the promise failover must keep. Writes that
 * succeeded on the primary but were not acknowledged may legitimately be lost and are not tracked.
 */
export class AcknowledgedWriter {
  readonly acknowledged: AcknowledgedWrite[] = [];
  readonly errors: WriteError[] = [];
  /** SETs that succeeded but whose WAIT saw too few replicas. */
  unacknowledgedWrites = 0;
  private stopping = false;
  private readonly loop: Promise<void>;
  private sequence = 0;

  private constructor(private readonly options: AcknowledgedWriterOptions) {
    this.loop = this.run();
  }

  /** Starts writing immediately. */
  static start(options: AcknowledgedWriterOptions): AcknowledgedWriter {
    return new AcknowledgedWriter(options);
  }

  /** Time of the last failed write, if any. */
  get lastErrorAt(): number | undefined {
    return this.errors.at(-1)?.at;
  }

  /** Acknowledgement time of the first write acknowledged after the last error, if any. */
  get firstAcknowledgedAfterLastErrorAt(): number | undefined {
    const lastErrorAt = this.lastErrorAt;
    return lastErrorAt === undefined ? undefined : this.firstAcknowledgedStartedAfter(lastErrorAt)?.acknowledgedAt;
  }

  /**
   * The first acknowledged write that was *sent* after `time`. With `time` the moment the primary was killed,
   * only a new primary can have acknowledged it, so `acknowledgedAt - time` is the failover time as a client
   * sees it (whether the client reported errors meanwhile or queued its commands).
   */
  firstAcknowledgedStartedAfter(time: number): AcknowledgedWrite | undefined {
    return this.acknowledged.find((write) => write.startedAt > time);
  }

  /** Stops after the write in flight and resolves once the loop has ended. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.loop;
  }

  private async run(): Promise<void> {
    const prefix = this.options.keyPrefix ?? 'ack';
    const replicas = this.options.replicas ?? 1;
    const waitTimeoutMilliseconds = this.options.waitTimeoutMilliseconds ?? 300;
    const pauseAfterErrorMilliseconds = this.options.pauseAfterErrorMilliseconds ?? 10;
    while (!this.stopping) {
      const key = `${prefix}:${this.sequence++}`;
      const value = String(this.sequence);
      const startedAt = Date.now();
      try {
        await this.options.client.set(key, value);
        const acknowledgements = Number(await this.options.client.wait(replicas, waitTimeoutMilliseconds));
        if (acknowledgements >= replicas) {
          this.acknowledged.push({ key, value, startedAt, acknowledgedAt: Date.now() });
        } else {
          this.unacknowledgedWrites++;
        }
      } catch (error) {
        this.errors.push({ at: Date.now(), message: error instanceof Error ? error.message : String(error) });
        await new Promise((resolve) => setTimeout(resolve, pauseAfterErrorMilliseconds));
      }
    }
  }
}

/**
 * Reads every acknowledged key back (pipelined, in batches) and returns those missing or holding another
 * value: acknowledged writes the failover lost.
 */
export async function verifyAcknowledgedKeys<Write extends Pick<AcknowledgedWrite, 'key' | 'value'>>(
  client: Redis,
  acknowledged: readonly Write[],
  batchSize = 500,
): Promise<Write[]> {
  const lost: Write[] = [];
  for (let start = 0; start < acknowledged.length; start += batchSize) {
    const batch = acknowledged.slice(start, start + batchSize);
    const values = await client.mget(...batch.map((write) => write.key));
    batch.forEach((write, index) => {
      if (values[index] !== write.value) {
        lost.push(write);
      }
    });
  }
  return lost;
}
