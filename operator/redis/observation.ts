import type { ConnectedReplica } from './info-parser';
import type { RedisCommandError, RedisUnreachableError } from './errors';

/** What one probe saw on one server. */
export type RedisObservation = UnreachableRedisObservation | ReachableRedisObservation;

/** The server did not answer usefully: refused, timed out, or rejected the probe (e.g. a wrong password). */
export interface UnreachableRedisObservation {
  readonly reachable: false;
  readonly error: RedisUnreachableError | RedisCommandError;
}

/** The server answered PING and INFO. */
export interface ReachableRedisObservation {
  readonly reachable: true;
  readonly role: 'primary' | 'replica';
  /** `run_id`: changes on every process start, so a restart is visible even when the address is the same. */
  readonly runId: string;
  readonly redisVersion: string;
  /** `master_replid`: the history the data set follows (a replica reports its primary's). */
  readonly replicationId: string;
  /**
   * How far into the replication stream this server's data set is; comparable between a primary and its
   * replicas (they share one stream), which is what failover ranks candidates by.
   *
   * - primary: `master_repl_offset`.
   * - replica: `slave_repl_offset`, the offset *applied* to the data set. It is what the replica reports in
   *   `REPLCONF ACK`, so what `WAIT` counts as acknowledged, and what the replica keeps as its
   *   `master_repl_offset` when promoted. `slave_read_repl_offset` (bytes read from the socket, possibly not
   *   applied yet) would overstate what a promotion preserves.
   * - a replica that never completed a sync prints the placeholder `slave_repl_offset:1` with
   *   `master_repl_offset:0`; it is reported as 0, since it holds none of its primary's data.
   */
  readonly offset: number;
  /** Replicas only: the primary it is configured to follow. */
  readonly primaryHost: string | undefined;
  readonly primaryPort: number | undefined;
  /** Replicas only: `master_link_status:up`. */
  readonly primaryLinkUp: boolean;
  /**
   * Replicas only: seconds since anything arrived from the primary (whole seconds, truncated). With
   * `repl-ping-replica-period 1` a live primary keeps this at 0 or 1 even without writes.
   */
  readonly primaryLastIoSecondsAgo: number | undefined;
  /** Replicas only: seconds since the link went down; undefined while up. */
  readonly primaryLinkDownSinceSeconds: number | undefined;
  /** Replicas only: a full sync (RDB transfer) is running. */
  readonly syncInProgress: boolean;
  /** Primaries only: the replicas attached right now. */
  readonly connectedReplicas: readonly ConnectedReplica[];
  /** `CONFIG GET min-replicas-to-write`. */
  readonly minReplicasToWrite: number;
  /** The server is loading its data set from disk and refuses most commands. */
  readonly loading: boolean;
  /** `master_failover_state` (6.2+), e.g. `no-failover` or `waiting-for-sync` during `FAILOVER`. */
  readonly failoverState: string | undefined;
}
