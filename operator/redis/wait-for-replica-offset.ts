import { setTimeout as delay } from 'node:timers/promises';
import type { RedisConnectionPool } from './connection-pool';
import type { RedisEndpoint } from './endpoint';
import { probe } from './probe';

/** Options of {@link waitForReplicaOffset}. */
export interface WaitForReplicaOffsetOptions {
  /** @default 5000 */
  readonly timeoutMilliseconds?: number;
  /** @default 10 */
  readonly pollIntervalMilliseconds?: number;
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
  const deadline = Date.now() + (options.timeoutMilliseconds ?? 5000);
  const pollIntervalMilliseconds = options.pollIntervalMilliseconds ?? 10;
  let offset: number | undefined;
  let lastError: Error | undefined;
  for (;;) {
    const observation = await probe(pool, endpoint);
    if (observation.reachable) {
      offset = observation.offset;
      lastError = undefined;
      if (offset >= targetOffset) {
        return { reached: true, offset };
      }
    } else {
      lastError = observation.error;
    }
    if (Date.now() + pollIntervalMilliseconds > deadline) {
      return lastError === undefined ? { reached: false, offset } : { reached: false, offset, lastError };
    }
    await delay(pollIntervalMilliseconds);
  }
}
