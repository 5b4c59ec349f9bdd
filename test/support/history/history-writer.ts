import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type Redis from 'ioredis';
import { endpointAddress, type RedisEndpoint } from '../../../operator/redis';
import { pipelineReplies } from '../../../operator/redis/pipeline-replies';
import { isOpen, messageOf, openConnection, serverAddressOf, withDeadline } from './redis-connection';

/**
 * What counts as an acknowledgement:
 * - `wait`: `SET` then `WAIT <replicas> <ms>`, acknowledged only when WAIT reported at least `replicas`;
 * - `min-replicas`: an OK to `SET` from a primary that enforces `min-replicas-to-write ≥ 1` (with a non-zero
 *   `min-replicas-max-lag`), read by `CONFIG GET` in the same pipeline, just before the SET on the same connection.
 */
export type AcknowledgementMode = 'wait' | 'min-replicas';

/**
 * What the writer does with its connection when a write fails:
 * - `reconnect`: closes it and opens a new one (through a Service, that one reaches the current endpoint);
 * - `hold`: keeps writing on it through error replies and timeouts, as an application holding a pooled
 *   connection to an old primary does (a kube-proxy keeps established flows). Only when the server or the network
 *   closes it does the writer open a new one, which it then holds.
 */
export type ConnectionPolicy = 'reconnect' | 'hold';

/** Options of {@link HistoryWriter.start}. */
export interface HistoryWriterOptions {
  /**
   * Where to connect, asked again for every new connection: a Service's ClusterIP (through the harness proxy), a
   * pod address, or a function that finds the current primary.
   */
  readonly address: () => RedisEndpoint | Promise<RedisEndpoint>;
  /** Names the writer in reports and prefixes its keys. @default 'writer-<random>' */
  readonly name?: string;
  /** @default 'wait' */
  readonly acknowledgement?: AcknowledgementMode;
  /** Replicas WAIT must report (mode `wait`). @default 1 */
  readonly waitReplicas?: number;
  /** WAIT's timeout (mode `wait`). @default 300 */
  readonly waitTimeoutMilliseconds?: number;
  /** @default 'reconnect' */
  readonly connection?: ConnectionPolicy;
  /** Deadline of connecting and of each command (WAIT gets its own timeout on top). @default 1000 */
  readonly commandTimeoutMilliseconds?: number;
  /** Pause after a failed write, so a dead primary does not turn the loop into a busy spin. @default 20 */
  readonly pauseAfterErrorMilliseconds?: number;
}

/** A write the server acknowledged (see {@link AcknowledgementMode}). */
export interface RecordedWrite {
  /** Unique per write, so a lost write is a missing key. */
  readonly key: string;
  /** The write's sequence number. */
  readonly value: string;
  readonly sequence: number;
  /** When the SET was sent (epoch ms). */
  readonly sentAt: number;
  /** When the acknowledgement arrived (epoch ms). */
  readonly acknowledgedAt: number;
  /** The server that acknowledged it (its own address for the connection, e.g. the pod IP behind a Service). */
  readonly server: string;
  /** WAIT's reply (mode `wait`); the good replicas the primary required (mode `min-replicas`). */
  readonly replicas: number;
}

/** A write that failed (error reply, timeout, closed connection) or could not be sent. */
export interface FailedWrite {
  readonly at: number;
  /** The server of the connection, or the address tried when connecting failed. */
  readonly server: string;
  readonly message: string;
}

/** A connection the writer opened. */
export interface WriterConnection {
  readonly openedAt: number;
  readonly server: string;
}

/** Errors kept per writer; later ones are counted only. */
const KEPT_FAILURES = 2000;

/**
 * Writes unique keys one at a time and records every acknowledged write, across failovers: on an error it reconnects
 * (or holds its connection, see {@link ConnectionPolicy}) and goes on until {@link stop}. A write that reached a
 * primary but was not acknowledged may legitimately be lost and is only counted.
 */
export class HistoryWriter {
  readonly name: string;
  readonly acknowledgement: AcknowledgementMode;
  readonly acknowledged: RecordedWrite[] = [];
  /** The first {@link KEPT_FAILURES} failures; {@link failedWrites} counts them all. */
  readonly failures: FailedWrite[] = [];
  readonly connections: WriterConnection[] = [];
  failedWrites = 0;
  /** Writes the server took without the acknowledgement (WAIT too low, or no min-replicas enforcement). */
  unacknowledgedWrites = 0;
  readonly startedAt = Date.now();
  private stopping = false;
  private sequence = 0;
  private client: Redis | undefined;
  private server = '';
  private readonly loop: Promise<void>;

  private constructor(private readonly options: HistoryWriterOptions) {
    this.name = options.name ?? `writer-${randomBytes(4).toString('hex')}`;
    this.acknowledgement = options.acknowledgement ?? 'wait';
    if (this.acknowledgement === 'wait' && (options.waitReplicas ?? 1) < 1) {
      throw new Error(`waitReplicas must be at least 1, got ${options.waitReplicas}`);
    }
    this.loop = this.run();
  }

  /** Starts writing at once. */
  static start(options: HistoryWriterOptions): HistoryWriter {
    return new HistoryWriter(options);
  }

  /** The first acknowledged write whose SET was sent after `time`. */
  firstAcknowledgedSentAfter(time: number): RecordedWrite | undefined {
    return this.acknowledged.find((write) => write.sentAt > time);
  }

  /** Stops after the write in flight; resolves once the loop has ended and the connection is closed. Idempotent. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.loop;
  }

  private async run(): Promise<void> {
    const pauseAfterErrorMilliseconds = this.options.pauseAfterErrorMilliseconds ?? 20;
    try {
      while (!this.stopping) {
        const succeeded = await this.writeOnce();
        if (!succeeded && !this.stopping) {
          await delay(pauseAfterErrorMilliseconds);
        }
      }
    } finally {
      this.client?.disconnect();
      this.client = undefined;
    }
  }

  /** One write; false when it failed. */
  private async writeOnce(): Promise<boolean> {
    const commandTimeoutMilliseconds = this.options.commandTimeoutMilliseconds ?? 1000;
    let client: Redis;
    try {
      client = await this.connection(commandTimeoutMilliseconds);
    } catch (error) {
      this.recordFailure(this.server, error);
      return false;
    }
    const sequence = this.sequence++;
    const key = `${this.name}:${sequence}`;
    const value = String(sequence);
    const sentAt = Date.now();
    try {
      const replicas = await withDeadline(
        this.acknowledgement === 'wait' ? this.setAndWait(client, key, value) : this.setUnderMinReplicas(client, key, value),
        commandTimeoutMilliseconds + (this.options.waitTimeoutMilliseconds ?? 300),
        `SET ${key}`,
      );
      if (replicas === undefined) {
        this.unacknowledgedWrites++;
      } else {
        this.acknowledged.push({ key, value, sequence, sentAt, acknowledgedAt: Date.now(), server: this.server, replicas });
      }
      return true;
    } catch (error) {
      this.recordFailure(this.server, error);
      if (this.options.connection !== 'hold' || !isOpen(client)) {
        client.disconnect();
        this.client = undefined;
      }
      return false;
    }
  }

  /** The connection to write on: the current one if still open, else a new one. */
  private async connection(timeoutMilliseconds: number): Promise<Redis> {
    if (this.client !== undefined && isOpen(this.client)) {
      return this.client;
    }
    this.client?.disconnect();
    this.client = undefined;
    const endpoint = await this.options.address();
    this.server = endpointAddress(endpoint);
    const client = await openConnection(endpoint, timeoutMilliseconds);
    try {
      this.server = await withDeadline(serverAddressOf(client, this.server), timeoutMilliseconds, 'CLIENT INFO');
    } catch (error) {
      client.disconnect();
      throw error;
    }
    this.client = client;
    this.connections.push({ openedAt: Date.now(), server: this.server });
    return client;
  }

  /** Replicas WAIT reported, or undefined when fewer than required. */
  private async setAndWait(client: Redis, key: string, value: string): Promise<number | undefined> {
    const required = this.options.waitReplicas ?? 1;
    const [set, wait] = pipelineReplies(
      await client.pipeline().set(key, value).wait(required, this.options.waitTimeoutMilliseconds ?? 300).exec(),
      2,
    );
    if (set!.error !== undefined) throw set!.error;
    if (wait!.error !== undefined) throw wait!.error;
    const replicas = Number(wait!.value);
    return replicas >= required ? replicas : undefined;
  }

  /** The primary's min-replicas-to-write when it enforced at least 1 for this SET, else undefined. */
  private async setUnderMinReplicas(client: Redis, key: string, value: string): Promise<number | undefined> {
    const [config, set] = pipelineReplies(await client.pipeline().config('GET', 'min-replicas-*').set(key, value).exec(), 2);
    if (set!.error !== undefined) throw set!.error;
    if (config!.error !== undefined) throw config!.error;
    const settings = new Map<string, string>();
    const flat = config!.value as string[];
    for (let index = 0; index + 1 < flat.length; index += 2) {
      settings.set(flat[index]!, flat[index + 1]!);
    }
    const toWrite = Number(settings.get('min-replicas-to-write') ?? 0);
    const maxLagSeconds = Number(settings.get('min-replicas-max-lag') ?? 0);
    // Redis enforces min-replicas-to-write only when min-replicas-max-lag is non-zero too.
    return toWrite >= 1 && maxLagSeconds > 0 ? toWrite : undefined;
  }

  private recordFailure(server: string, error: unknown): void {
    this.failedWrites++;
    if (this.failures.length < KEPT_FAILURES) {
      this.failures.push({ at: Date.now(), server, message: messageOf(error) });
    }
  }
}
