import { setTimeout as delay } from 'node:timers/promises';
import { DEFAULT_REDIS_PORT, endpointAddress, type RedisEndpoint } from './endpoint';
import { RedisCommandError, RedisUnreachableError } from './errors';
import type { ResolvedSwitchoverRequest, SwitchoverResult } from './switchover';
import type { ReplicationInfo } from './info-parser';
import type { SwitchoverCommandSet } from './switchover-commands';
import { appliedOffset, switchoverReadiness, type SwitchoverAbortCode } from './switchover-readiness';
import { waitForOffset } from './wait-for-replica-offset';

/**
 * The pause outlasts the longest wait by this much, so it still holds while the remaining round trips (each
 * bounded by the command timeout) run, and it lapses by itself soon after if this process dies.
 */
const PAUSE_MARGIN_MILLISECONDS = 1000;

/** Between two offset reads while writes wait: one loopback or pod-network round trip is well under this. */
const DRAIN_POLL_INTERVAL_MILLISECONDS = 1;
const CATCH_UP_POLL_INTERVAL_MILLISECONDS = 5;

/**
 * How long the promotion waits for the other replicas to confirm they are detached. They cannot follow a writable
 * primary meanwhile — the old primary is a read-only replica already, and the target is not promoted yet — so a
 * replica that is down or frozen must not hold the pause for a whole command timeout; it is repointed (or reported)
 * with the others afterwards.
 */
const DETACH_WAIT_MILLISECONDS = 100;

/**
 * The switchover recipe (see {@link SwitchoverStep} for the names):
 *
 * 1. check: the target follows the primary with its link up; catch up while writes still flow.
 * 2. pause: `CLIENT PAUSE WRITE` and read the primary's offset in one round trip. No write reaches the primary
 *    after that offset, so none can be acknowledged there that the target will not have.
 * 3. drain: poll the target's applied offset (a millisecond apart) until it has that offset — its own INFO, not
 *    the primary's `slaveN:offset`, which is only refreshed by the once-a-second ACK.
 * 4. demote: the old primary follows an address where nothing listens: read-only at once, and it stops adding to
 *    the stream (no more replica PINGs), so its final offset is exact. Drain again if a PING slipped in.
 * 5. detach the other replicas the same way, so none follows the old primary when the target is promoted (one that
 *    does not confirm within 100 ms is not waited for: the old primary it might still follow is read-only already).
 * 6. promote the target. At no instant were two servers writable: the old one was read-only before.
 * 7. repoint the old primary (pipelined with the unpause) and the others to the target. Each continues with a
 *    partial resync: it shares the target's history up to an offset it does not exceed. Explicit REPLICAOF
 *    connects at once, where a dropped link would only be retried by the next once-a-second replication cron.
 *
 * Failures before the promotion undo what was done (unpause; give a demoted old primary its role back) and return
 * `aborted`. A command that times out after the demotion leaves the outcome unknown and is thrown.
 */
export async function pauseAndPromote(commands: SwitchoverCommandSet, request: ResolvedSwitchoverRequest): Promise<SwitchoverResult> {
  const method = 'pause-and-promote';
  const startedAt = performance.now();
  const step = request.onStep ?? (() => undefined);
  const timeoutMilliseconds = request.timeoutMilliseconds;
  const { primary, target } = request;
  const others = request.otherReplicas ?? [];
  const targetSource = { host: target.host, port: target.port ?? DEFAULT_REDIS_PORT };
  let pausedAt: number | undefined;
  const aborted = (code: SwitchoverAbortCode, reason: string): SwitchoverResult => ({
    outcome: 'aborted',
    method,
    code,
    reason,
    durationMilliseconds: Math.round(performance.now() - startedAt),
    writePauseMilliseconds: pausedAt === undefined ? 0 : Math.round(performance.now() - pausedAt),
  });
  const targetOffset = async (): Promise<number | Error> => {
    try {
      return appliedOffset(await commands.replication(target));
    } catch (error) {
      return asRedisError(error);
    }
  };

  step('checking');
  const [primaryReplication, targetReplication] = await Promise.all([
    commands.replication(primary).catch(asRedisError),
    commands.replication(target).catch(asRedisError),
  ]);
  const readiness = switchoverReadiness(
    { endpoint: primary, replication: primaryReplication },
    { endpoint: target, replication: targetReplication },
  );
  if (!readiness.ready) {
    return aborted(readiness.code, readiness.reason);
  }
  step('catching-up');
  const caughtUp = await waitForOffset(targetOffset, readiness.primaryOffset, {
    timeoutMilliseconds,
    pollIntervalMilliseconds: CATCH_UP_POLL_INTERVAL_MILLISECONDS,
  });
  if (!caughtUp.reached) {
    return aborted('target-lagging', `${lagDescription(caughtUp, readiness.primaryOffset, timeoutMilliseconds)}; writes were not paused`);
  }

  step('pausing');
  pausedAt = performance.now();
  let paused: ReplicationInfo;
  try {
    paused = await commands.pauseWrites(primary, timeoutMilliseconds + PAUSE_MARGIN_MILLISECONDS);
  } catch (error) {
    if (error instanceof RedisCommandError) {
      pausedAt = undefined;
      return aborted('pause-refused', `${endpointAddress(primary)} refused CLIENT PAUSE WRITE (needs Redis 6.2+): ${error.reply}`);
    }
    throw error;
  }
  const drainDeadline = pausedAt + timeoutMilliseconds;
  const drain = (offset: number) =>
    waitForOffset(targetOffset, offset, {
      timeoutMilliseconds: Math.max(0, drainDeadline - performance.now()),
      pollIntervalMilliseconds: DRAIN_POLL_INTERVAL_MILLISECONDS,
    });

  step('draining');
  const pausedOffset = appliedOffset(paused);
  const drained = await drain(pausedOffset);
  if (!drained.reached) {
    await commands.unpause(primary);
    return aborted('target-not-caught-up', `${lagDescription(drained, pausedOffset, timeoutMilliseconds)} while writes were paused`);
  }

  step('demoting');
  let finalOffset: number;
  try {
    // Listed now rather than with the pause: a WAIT sent just before the pause has arrived by the time the target
    // drained, and the window in which one could still slip in is a single round trip.
    const waiting = await commands.clientsBlockedInWait(primary);
    finalOffset = appliedOffset(await commands.detach(primary, waiting));
  } catch (error) {
    if (!isRedisError(error)) {
      throw error;
    }
    // Whether REPLICAOF took effect is unknown; REPLICAOF NO ONE is right either way (a no-op on a primary).
    step('restoring');
    await commands.restoreAndUnpause(primary);
    if (error instanceof RedisCommandError) {
      return aborted('primary-not-ready', `${endpointAddress(primary)} refused to be detached: ${error.reply}`);
    }
    throw error;
  }
  if (finalOffset > (drained.offset ?? 0)) {
    const drainedAgain = await drain(finalOffset);
    if (!drainedAgain.reached) {
      step('restoring');
      await commands.restoreAndUnpause(primary);
      return aborted('target-not-caught-up', `${lagDescription(drainedAgain, finalOffset, timeoutMilliseconds)} while writes were paused`);
    }
  }

  step('detaching');
  const detachFailures = await settle(others, (replica) => commands.detach(replica), DETACH_WAIT_MILLISECONDS);
  const detached = others.filter((replica) => !detachFailures.has(replica));

  step('promoting');
  try {
    await commands.promote(target);
  } catch (error) {
    if (!(error instanceof RedisCommandError)) {
      throw error; // timed out: the target may or may not be primary now.
    }
    step('restoring');
    const oldSource = { host: primary.host, port: primary.port ?? DEFAULT_REDIS_PORT };
    await Promise.all([commands.restoreAndUnpause(primary), settle(detached, (replica) => commands.replicaOf(replica, oldSource))]);
    return aborted('promotion-refused', `${endpointAddress(target)} refused REPLICAOF NO ONE: ${error.reply}`);
  }

  step('repointing');
  let writePauseMilliseconds = 0;
  const [oldPrimaryFailure, repointFailures] = await Promise.all([
    commands.repointAndUnpause(primary, targetSource).then(
      () => undefined,
      (error: unknown) => asRedisError(error),
    ).finally(() => {
      writePauseMilliseconds = Math.round(performance.now() - pausedAt!);
    }),
    settle(others, (replica) => commands.replicaOf(replica, targetSource)),
  ]);
  const replicasNotRepointed = [
    ...(oldPrimaryFailure === undefined ? [] : [`${endpointAddress(primary)}: ${oldPrimaryFailure.message}`]),
    ...others.flatMap((replica) => {
      // A replica that missed its detach but took the repoint follows the target: nothing to report.
      const failure = repointFailures.get(replica);
      return failure === undefined ? [] : [`${endpointAddress(replica)}: ${failure.message}`];
    }),
  ];

  step('verifying');
  const promoted = await commands.replication(target);
  if (promoted.role !== 'primary') {
    throw new RedisCommandError(endpointAddress(target), 'switchover', 'target is not primary afterwards');
  }
  return {
    outcome: 'completed',
    method,
    newPrimary: endpointAddress(target),
    offset: appliedOffset(promoted),
    durationMilliseconds: Math.round(performance.now() - startedAt),
    writePauseMilliseconds,
    replicasNotRepointed,
  };
}

/**
 * Runs `action` on every endpoint at once; returns the failures (an abort is rethrown, never collected). With
 * `waitMilliseconds`, an endpoint that has not answered by then counts as failed and is no longer waited for.
 */
async function settle(
  endpoints: readonly RedisEndpoint[],
  action: (endpoint: RedisEndpoint) => Promise<unknown>,
  waitMilliseconds?: number,
): Promise<Map<RedisEndpoint, Error>> {
  const failures = new Map<RedisEndpoint, Error>();
  const timer = new AbortController();
  const unanswered = (endpoint: RedisEndpoint) =>
    delay(waitMilliseconds ?? 0, undefined, { signal: timer.signal }).then(() => {
      throw new RedisUnreachableError(endpointAddress(endpoint), `no answer within ${waitMilliseconds} ms`);
    });
  try {
    const results = await Promise.allSettled(
      endpoints.map((endpoint) => (waitMilliseconds === undefined ? action(endpoint) : Promise.race([action(endpoint), unanswered(endpoint)]))),
    );
    results.forEach((result, index) => {
      if (result.status === 'rejected') {
        failures.set(endpoints[index]!, asRedisError(result.reason));
      }
    });
  } finally {
    timer.abort();
  }
  return failures;
}

/** Redis failures become values; an abort or a bug propagates. */
function asRedisError(error: unknown): Error {
  if (isRedisError(error)) {
    return error;
  }
  throw error;
}

function isRedisError(error: unknown): error is RedisCommandError | RedisUnreachableError {
  return error instanceof RedisCommandError || error instanceof RedisUnreachableError;
}

function lagDescription(wait: { offset: number | undefined; lastError?: Error }, wanted: number, timeoutMilliseconds: number): string {
  const seen = wait.offset === undefined ? 'no offset' : `offset ${wait.offset}`;
  const error = wait.lastError === undefined ? '' : ` (last error: ${wait.lastError.message})`;
  return `target reached ${seen} of ${wanted} within ${timeoutMilliseconds} ms${error}`;
}
