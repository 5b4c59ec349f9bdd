import { setTimeout as delay } from 'node:timers/promises';
import { DEFAULT_REDIS_PORT, endpointAddress } from './endpoint';
import { RedisCommandError, RedisUnreachableError } from './errors';
import type { ReplicationInfo } from './info-parser';
import type { ResolvedSwitchoverRequest, SwitchoverResult } from './switchover';
import type { SwitchoverCommandSet } from './switchover-commands';
import { appliedOffset } from './switchover-readiness';

const POLL_INTERVAL_MILLISECONDS = 10;

/** FAILOVER itself may take its timeout to give up; its end is awaited this much longer before it counts as stuck. */
const FINISH_GRACE_MILLISECONDS = 2000;

/**
 * Redis' own `FAILOVER TO`: the primary pauses writes, waits until the target's `REPLCONF ACK` (sent once a
 * second) reaches its offset, demotes itself and hands over with `PSYNC FAILOVER`. It answers at once and works in
 * the background, so its end is polled from `master_failover_state`. The other replicas stay chained below the old
 * primary until repointed here.
 */
export async function failoverCommand(commands: SwitchoverCommandSet, request: ResolvedSwitchoverRequest): Promise<SwitchoverResult> {
  const method = 'failover-command';
  const startedAt = performance.now();
  const step = request.onStep ?? (() => undefined);
  const { primary, target, timeoutMilliseconds } = request;
  step('failing-over');
  try {
    await commands.failoverTo(primary, target, timeoutMilliseconds);
  } catch (error) {
    if (error instanceof RedisCommandError && !/unknown command/i.test(error.reply)) {
      // e.g. "ERR FAILOVER target HOST and PORT is not a replica." — nothing changed.
      return { outcome: 'aborted', method, code: 'failover-refused', reason: error.reply, durationMilliseconds: elapsed(startedAt), writePauseMilliseconds: 0 };
    }
    throw error;
  }
  const deadline = startedAt + timeoutMilliseconds + FINISH_GRACE_MILLISECONDS;
  for (;;) {
    const observed = await commands.replication(primary).catch((error: unknown) => {
      if (error instanceof RedisUnreachableError || error instanceof RedisCommandError) return error;
      throw error;
    });
    if (!(observed instanceof Error) && observed.failoverState === 'no-failover') {
      if (observed.role === 'primary') {
        return {
          outcome: 'aborted',
          method,
          code: 'target-not-caught-up',
          reason: `target did not catch up within ${timeoutMilliseconds} ms`,
          durationMilliseconds: elapsed(startedAt),
          writePauseMilliseconds: elapsed(startedAt),
        };
      }
      break;
    }
    if (performance.now() > deadline) {
      const seen = observed instanceof Error ? observed.message : `failover state ${observed.failoverState}`;
      throw new RedisCommandError(endpointAddress(primary), 'FAILOVER', `did not finish: ${seen}`);
    }
    await delay(POLL_INTERVAL_MILLISECONDS);
  }
  const writePauseMilliseconds = elapsed(startedAt);
  step('verifying');
  const promoted: ReplicationInfo = await commands.replication(target);
  if (promoted.role !== 'primary') {
    throw new RedisCommandError(endpointAddress(target), 'switchover', 'target is not primary afterwards');
  }
  step('repointing');
  const source = { host: target.host, port: target.port ?? DEFAULT_REDIS_PORT };
  const others = request.otherReplicas ?? [];
  const results = await Promise.allSettled(others.map((replica) => commands.replicaOf(replica, source)));
  const replicasNotRepointed = results.flatMap((result, index) => {
    if (result.status === 'fulfilled') return [];
    const error: unknown = result.reason;
    if (!(error instanceof RedisUnreachableError || error instanceof RedisCommandError)) throw error;
    // Reported rather than thrown: the switchover itself succeeded and is not undone.
    return [`${endpointAddress(others[index]!)}: ${error.message}`];
  });
  return {
    outcome: 'completed',
    method,
    newPrimary: endpointAddress(target),
    offset: appliedOffset(promoted),
    durationMilliseconds: elapsed(startedAt),
    writePauseMilliseconds,
    replicasNotRepointed,
  };
}

function elapsed(since: number): number {
  return Math.round(performance.now() - since);
}
