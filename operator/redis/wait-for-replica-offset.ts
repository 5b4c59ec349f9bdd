import { setTimeout as delay } from 'node:timers/promises';
import type { RedisConnectionPool } from './connection-pool';
import { endpointAddress, type RedisEndpoint } from './endpoint';
import { throwIfAborted } from './operation-aborted';
import { probe } from './probe';

/** Options of {@link waitForReplicaOffset}. */
export interface WaitForReplicaOffsetOptions {
  /** @default 5000 */
  readonly timeoutMilliseconds?: number;
  /** @default 10 */
  readonly pollIntervalMilliseconds?: number;
  /**
   * Checked before every poll: once aborted, no further command is sent and the wait rejects with a
   * `RedisOperationAbortedError`.
   * @default - never aborted
   */
  readonly signal?: AbortSignal;
}

/** Whether the offset was reached, and the last offset seen (undefined if the replica never answered). */
export interface WaitForReplicaOffsetResult {
  readonly reached: boolean;
  readonly offset: number | undefined;
  /** Why the last probe failed, when it did. */
  readonly lastError?: Error;
}

/**
 * Polls the server until its observed offset (see `ReachableRedisObservation.offset`: the applied offset for a
 * replica) is at least `targetOffset`, or the deadline passes. Unreachable probes are retried until the
 * deadline, since a replica under load may miss one probe.
 */
export async function waitForReplicaOffset(
  pool: RedisConnectionPool,
  endpoint: RedisEndpoint,
  targetOffset: number,
  options: WaitForReplicaOffsetOptions = {},
): Promise<WaitForReplicaOffsetResult> {
  return waitForOffset(
    async () => {
      throwIfAborted(options.signal, 'probe', endpointAddress(endpoint));
      const observation = await probe(pool, endpoint);
      return observation.reachable ? observation.offset : observation.error;
    },
    targetOffset,
    options,
  );
}

/**
 * Reads an offset (a number, or the error that kept it from being read) until it is at least `targetOffset`.
 * The deadline is measured on the monotonic clock and also bounds each read: a read still pending when time is up
 * (a frozen server answers nothing until the command timeout) is abandoned, so the wait never overruns its
 * timeout by a command timeout. A read that throws ends the wait with that error (e.g. an abort).
 */
export async function waitForOffset(
  readOffset: () => Promise<number | Error>,
  targetOffset: number,
  options: Omit<WaitForReplicaOffsetOptions, 'signal'> = {},
): Promise<WaitForReplicaOffsetResult> {
  const deadline = performance.now() + (options.timeoutMilliseconds ?? 5000);
  const pollIntervalMilliseconds = options.pollIntervalMilliseconds ?? 10;
  let offset: number | undefined;
  let lastError: Error | undefined;
  for (;;) {
    const read = await readBefore(readOffset, deadline);
    if (typeof read === 'number') {
      offset = read;
      lastError = undefined;
      if (offset >= targetOffset) {
        return { reached: true, offset };
      }
    } else if (read !== undefined) {
      lastError = read;
    }
    if (read === undefined || performance.now() + pollIntervalMilliseconds > deadline) {
      return lastError === undefined ? { reached: false, offset } : { reached: false, offset, lastError };
    }
    await delay(pollIntervalMilliseconds);
  }
}

/** The read's result, or undefined when the deadline passed first. */
async function readBefore(readOffset: () => Promise<number | Error>, deadline: number): Promise<number | Error | undefined> {
  const timer = new AbortController();
  try {
    return await Promise.race([
      readOffset(),
      delay(Math.max(0, deadline - performance.now()), undefined, { signal: timer.signal }),
    ]);
  } finally {
    timer.abort();
  }
}
