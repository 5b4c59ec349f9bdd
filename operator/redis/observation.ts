import type { ConnectedReplica } from './info-parser';
import type { RedisCommandError, RedisUnreachableError } from './errors';

/**
 * Where a server's data set stands in the replication history, as far as can be *proved* from what it reports.
 *
 * - `known`: the data set is the prefix of history `replicationId` up to `offset` (and, after a promotion, shares
 *   history `secondaryReplicationId` up to `secondaryOffset`). Positions of one history are comparable.
 * - `empty`: a replica with no key and no offset: it holds nothing. `replicationId` tells a replica that synced from an
 *   empty primary (it shares that primary's history, at offset 0) from a new pod or one restarted on an empty volume
 *   (a history of its own).
 * - `unknown`: it holds data but cannot say which writes: a restart from AOF (Redis then reports offset 0 and a new
 *   replication ID although every key loaded), a load or full sync in progress. Never treated as offset 0.
 *
 * See docs/failover.md, invariant I1.
 */
export type ReplicationPosition =
  | {
      readonly kind: 'known';
      readonly replicationId: string;
      readonly offset: number;
      readonly secondaryReplicationId: string | undefined;
      readonly secondaryOffset: number | undefined;
    }
  | { readonly kind: 'empty'; readonly replicationId: string }
  | { readonly kind: 'unknown'; readonly why: string };

/** What one probe saw on one server. */
export type RedisObservation = UnreachableRedisObservation | ReachableRedisObservation;

/**
 * The server did not answer usefully: refused, timed out, or rejected the probe (e.g. a wrong password). A
 * {@link RedisCommandError} means the server *replied* (`-WRONGPASS`, `-NOAUTH`, `-BUSY`, ...): it is alive, which
 * {@link answeredWithError} tells (invariant I4: a reply never starts failure detection).
 */
export interface UnreachableRedisObservation {
  readonly reachable: false;
  readonly error: RedisUnreachableError | RedisCommandError;
}

/** The server is alive: it sent an error reply rather than nothing. */
export function answeredWithError(observation: RedisObservation | null): boolean {
  return observation !== null && !observation.reachable && observation.error.name === 'RedisCommandError';
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
  /** What this data set provably holds; what failover ranks candidates by (see {@link ReplicationPosition}). */
  readonly position: ReplicationPosition;
  /** Keys in all databases (`INFO keyspace`). */
  readonly keys: number;
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
