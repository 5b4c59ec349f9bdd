import type { RedisConnectionPool } from './connection-pool';
import type { RedisEndpoint } from './endpoint';
import { SwitchoverCommands } from './switchover-commands';
import { failoverCommand } from './switchover-failover-command';
import { pauseAndPromote } from './switchover-pause-and-promote';
import type { SwitchoverAbortCode } from './switchover-readiness';

export type { SwitchoverAbortCode } from './switchover-readiness';

/** How the switchover is carried out. */
export type SwitchoverMethod =
  /**
   * Redis' own `FAILOVER TO host port TIMEOUT ms` (6.2+): pauses writes, waits for the target, swaps roles.
   * Redis learns the target's offset from its once-a-second `REPLCONF ACK`, so writes pause for up to a second.
   */
  | 'failover-command'
  /**
   * The same steps driven from here, polling the target's offset instead of waiting for its ACK: CLIENT PAUSE
   * WRITE, wait for the offset, detach the old primary and the other replicas, promote, repoint, unpause.
   * Writes pause for a few round trips.
   */
  | 'pause-and-promote';

/** A step of a switchover, reported through {@link SwitchoverRequest.onStep} as it begins. */
export type SwitchoverStep =
  /** Reading primary and target to see whether the switchover can succeed; nothing changes. */
  | 'checking'
  /** Waiting, writes still flowing, until the target has what the primary had when checked. */
  | 'catching-up'
  /** `CLIENT PAUSE WRITE` on the primary; from here writes wait. */
  | 'pausing'
  /** Waiting until the target has applied the primary's last offset. */
  | 'draining'
  /** The old primary becomes a read-only replica of nobody: it can acknowledge nothing any more. */
  | 'demoting'
  /** The other replicas stop replicating from the old primary. */
  | 'detaching'
  /** `REPLICAOF NO ONE` on the target. */
  | 'promoting'
  /** Old primary and other replicas follow the target; the pause is lifted. */
  | 'repointing'
  /** Undoing a demotion after the target could not take over. */
  | 'restoring'
  /** Reading the new primary's role and offset. */
  | 'verifying'
  /** Waiting for `FAILOVER` to finish (method `failover-command`). */
  | 'failing-over';

/** A planned, lossless change of primary. */
export interface SwitchoverRequest {
  /** The current primary. */
  readonly primary: RedisEndpoint;
  /**
   * The replica to promote. Its `master_host`/`master_port` must be the primary's address as given here (what
   * REPLICAOF set); with `failover-command` its host and port must also be the address the primary lists it under
   * (`INFO replication` `slaveN:ip=...`), which `FAILOVER TO` matches against.
   */
  readonly target: RedisEndpoint;
  /** Other replicas of the primary, detached before the promotion and repointed to the target after it. @default [] */
  readonly otherReplicas?: readonly RedisEndpoint[];
  /**
   * Longest time writes may stay paused while the target catches up; also bounds the wait for the target before
   * the pause. A controller that dies mid-switchover leaves the pause to expire by itself 1 s after this.
   * @default 5000
   */
  readonly timeoutMilliseconds?: number;
  /** @default 'pause-and-promote' */
  readonly method?: SwitchoverMethod;
  /**
   * Checked before every Redis command. Once aborted (e.g. the controller lost its lease) the switchover sends
   * nothing more — not even the unpause, which then expires by itself — and rejects with a
   * `RedisOperationAbortedError` (name `AbortError`).
   * @default - never aborted
   */
  readonly signal?: AbortSignal;
  /**
   * Called synchronously as each step begins, for logs and metrics. What it throws is ignored: it must not be able
   * to stop a switchover while writes are paused.
   * @default - nothing
   */
  readonly onStep?: (step: SwitchoverStep) => void;
}

/** A request with its defaults applied, as the recipes take it. */
export type ResolvedSwitchoverRequest = SwitchoverRequest & { readonly timeoutMilliseconds: number };

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
       * How long writes were held on the old primary, as this process saw it: from sending the pause to the answer
       * of the unpause (`failover-command`: from sending FAILOVER to seeing it finished).
       */
      readonly writePauseMilliseconds: number;
      /**
       * Replicas that could not be repointed, as `host:port: reason` (the topology planner repairs them on its
       * next pass). A failure to repoint the old primary is listed too: it stays a read-only replica of nobody.
       */
      readonly replicasNotRepointed: readonly string[];
    }
  | {
      readonly outcome: 'aborted';
      readonly method: SwitchoverMethod;
      /** What went wrong, for people. */
      readonly reason: string;
      /** What went wrong, for the caller's retry policy. */
      readonly code: SwitchoverAbortCode;
      readonly durationMilliseconds: number;
      /** How long writes were held before they were resumed on the old primary; 0 when they never were. */
      readonly writePauseMilliseconds: number;
    };

/**
 * Moves the primary role to `target` without losing acknowledged writes: writes pause on the old primary until
 * the target has applied every byte of the stream, the old primary and the other replicas are detached, the
 * target is promoted, and everyone else follows it. Clients held by the pause get `READONLY` from the demoted
 * server and retry on the new one. See docs/failover.md for the invariants this keeps.
 *
 * @throws RedisUnreachableError / RedisCommandError when a server fails in a way that leaves the outcome unknown;
 *   the caller re-observes and lets the topology planner decide.
 * @throws RedisOperationAbortedError once `signal` is aborted.
 */
export async function switchover(pool: RedisConnectionPool, request: SwitchoverRequest): Promise<SwitchoverResult> {
  const timeoutMilliseconds = request.timeoutMilliseconds ?? 5000;
  if (!Number.isInteger(timeoutMilliseconds) || timeoutMilliseconds <= 0) {
    throw new RangeError(`switchover timeoutMilliseconds must be a positive integer, got ${timeoutMilliseconds}`);
  }
  const commands = new SwitchoverCommands(pool, request.signal);
  const observer = request.onStep;
  const onStep = (step: SwitchoverStep): void => {
    try {
      observer?.(step);
    } catch {
      // An observer is for logs and metrics; its failure must not stop a switchover that has paused writes.
    }
  };
  const options = { ...request, timeoutMilliseconds, onStep };
  return request.method === 'failover-command' ? failoverCommand(commands, options) : pauseAndPromote(commands, options);
}
