import { setTimeout as delay } from 'node:timers/promises';
import { makeReplicaOf, promoteToPrimary } from './commands';
import type { RedisConnectionPool } from './connection-pool';
import { DEFAULT_REDIS_PORT, endpointAddress, type RedisEndpoint } from './endpoint';
import { RedisCommandError } from './errors';
import { probe } from './probe';
import { waitForReplicaOffset } from './wait-for-replica-offset';

/** How the switchover is carried out. */
export type SwitchoverMethod =
  /** Redis' own `FAILOVER TO host port TIMEOUT ms` (6.2+): pauses writes, waits for the target, swaps roles. */
  | 'failover-command'
  /** The same steps driven from here: CLIENT PAUSE WRITE, wait for the offset, promote, repoint, unpause. */
  | 'pause-and-promote';

/** A planned, lossless change of primary. */
export interface SwitchoverRequest {
  /** The current primary. */
  readonly primary: RedisEndpoint;
  /**
   * The replica to promote. Its host and port must be the address the primary lists it under
   * (`INFO replication` `slaveN:ip=...`), which `FAILOVER TO` matches against.
   */
  readonly target: RedisEndpoint;
  /** Other replicas of the primary, repointed to the target afterwards. @default [] */
  readonly otherReplicas?: readonly RedisEndpoint[];
  /** Longest time writes may stay paused while the target catches up. @default 5000 */
  readonly timeoutMilliseconds?: number;
  /**
   * Forces a method; by default `failover-command` is used and `pause-and-promote` only when the server does
   * not know `FAILOVER` (before 6.2).
   * @default - `failover-command`, falling back to `pause-and-promote`
   */
  readonly method?: SwitchoverMethod;
}

/** The result of {@link switchover}. `aborted` leaves the old primary in charge and writable. */
export type SwitchoverResult =
  | {
      readonly outcome: 'completed';
      readonly method: SwitchoverMethod;
      /** `host:port` of the new primary. */
      readonly newPrimary: string;
      /** Replication offset of the new primary right after the switch: nothing acknowledged before is lost. */
      readonly offset: number;
      readonly durationMilliseconds: number;
      /**
       * Replicas that could not be repointed, as `host:port: reason` (the topology planner repairs them on its
       * next pass).
       */
      readonly replicasNotRepointed: readonly string[];
    }
  | {
      readonly outcome: 'aborted';
      readonly method: SwitchoverMethod;
      readonly reason: string;
      readonly durationMilliseconds: number;
    };

const POLL_INTERVAL_MILLISECONDS = 10;

/**
 * Moves the primary role to `target` without losing acknowledged writes: writes pause on the old primary
 * until the target has applied every byte of the stream, then roles swap. Clients blocked by the pause get
 * `READONLY` from the demoted server and retry on the new one.
 *
 * @throws RedisUnreachableError / RedisCommandError when the primary or target fails in a way that leaves
 *   the outcome unknown; the caller re-observes and lets the topology planner decide.
 */
export async function switchover(pool: RedisConnectionPool, request: SwitchoverRequest): Promise<SwitchoverResult> {
  const startedAt = Date.now();
  if (request.method === 'pause-and-promote') {
    return pauseAndPromote(pool, request, startedAt);
  }
  try {
    return await failoverCommand(pool, request, startedAt);
  } catch (error) {
    const unknownCommand = error instanceof RedisCommandError && /unknown command/i.test(error.reply);
    if (unknownCommand && request.method === undefined) {
      return pauseAndPromote(pool, request, startedAt);
    }
    throw error;
  }
}

async function failoverCommand(
  pool: RedisConnectionPool,
  request: SwitchoverRequest,
  startedAt: number,
): Promise<SwitchoverResult> {
  const method = 'failover-command';
  const timeoutMilliseconds = request.timeoutMilliseconds ?? 5000;
  const targetPort = request.target.port ?? DEFAULT_REDIS_PORT;
  try {
    await pool.run(request.primary, 'FAILOVER', (client) =>
      client.call('FAILOVER', 'TO', request.target.host, String(targetPort), 'TIMEOUT', String(timeoutMilliseconds)),
    );
  } catch (error) {
    if (error instanceof RedisCommandError && !/unknown command/i.test(error.reply)) {
      // e.g. "ERR FAILOVER target HOST and PORT is not a replica." — nothing changed.
      return { outcome: 'aborted', method, reason: error.reply, durationMilliseconds: Date.now() - startedAt };
    }
    throw error;
  }
  // FAILOVER answers at once and proceeds in the background; its end shows in master_failover_state.
  const deadline = Date.now() + timeoutMilliseconds + 2000;
  for (;;) {
    const primary = await probe(pool, request.primary);
    if (primary.reachable && primary.failoverState === 'no-failover') {
      if (primary.role === 'primary') {
        return {
          outcome: 'aborted',
          method,
          reason: `target did not catch up within ${timeoutMilliseconds} ms`,
          durationMilliseconds: Date.now() - startedAt,
        };
      }
      break;
    }
    if (Date.now() > deadline) {
      const seen = primary.reachable ? `failover state ${primary.failoverState}` : primary.error.message;
      throw new RedisCommandError(endpointAddress(request.primary), 'FAILOVER', `did not finish: ${seen}`);
    }
    await delay(POLL_INTERVAL_MILLISECONDS);
  }
  return finish(pool, request, method, startedAt);
}

async function pauseAndPromote(
  pool: RedisConnectionPool,
  request: SwitchoverRequest,
  startedAt: number,
): Promise<SwitchoverResult> {
  const method = 'pause-and-promote';
  const timeoutMilliseconds = request.timeoutMilliseconds ?? 5000;
  // The pause outlasts the whole procedure so no write can slip in between reading the offset and the
  // promotion; it is lifted explicitly below, and expires by itself if this process dies.
  const pauseMilliseconds = timeoutMilliseconds + 5000;
  await pool.run(request.primary, 'CLIENT PAUSE', (client) =>
    client.call('CLIENT', 'PAUSE', String(pauseMilliseconds), 'WRITE'),
  );
  try {
    const primary = await probe(pool, request.primary);
    if (!primary.reachable) {
      throw primary.error;
    }
    const caughtUp = await waitForReplicaOffset(pool, request.target, primary.offset, {
      timeoutMilliseconds,
      pollIntervalMilliseconds: POLL_INTERVAL_MILLISECONDS,
    });
    if (!caughtUp.reached) {
      return {
        outcome: 'aborted',
        method,
        reason: `target reached offset ${caughtUp.offset ?? 'unknown'} of ${primary.offset} within ${timeoutMilliseconds} ms`,
        durationMilliseconds: Date.now() - startedAt,
      };
    }
    await promoteToPrimary(pool, request.target);
    await makeReplicaOf(pool, request.primary, request.target.host, request.target.port ?? DEFAULT_REDIS_PORT);
  } finally {
    // Once demoted, the paused writers are answered READONLY and retry against the new primary.
    await pool.run(request.primary, 'CLIENT UNPAUSE', (client) => client.call('CLIENT', 'UNPAUSE'));
  }
  return finish(pool, request, method, startedAt);
}

async function finish(
  pool: RedisConnectionPool,
  request: SwitchoverRequest,
  method: SwitchoverMethod,
  startedAt: number,
): Promise<SwitchoverResult> {
  const target = await probe(pool, request.target);
  if (!target.reachable) {
    throw target.error;
  }
  if (target.role !== 'primary') {
    throw new RedisCommandError(endpointAddress(request.target), 'switchover', 'target is not primary afterwards');
  }
  const targetPort = request.target.port ?? DEFAULT_REDIS_PORT;
  const replicasNotRepointed: string[] = [];
  await Promise.all(
    (request.otherReplicas ?? []).map(async (replica) => {
      try {
        await makeReplicaOf(pool, replica, request.target.host, targetPort);
      } catch (error) {
        // Reported in the result rather than thrown: the switchover itself succeeded and is not undone.
        replicasNotRepointed.push(`${endpointAddress(replica)}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }),
  );
  return {
    outcome: 'completed',
    method,
    newPrimary: endpointAddress(request.target),
    offset: target.offset,
    durationMilliseconds: Date.now() - startedAt,
    replicasNotRepointed,
  };
}
