import { parseKeyCount, parseLoading, parseReplicationInfo, parseServerInfo, type ReplicationInfo } from './info-parser';
import type { ReachableRedisObservation, ReplicationPosition } from './observation';

/**
 * Builds the observation of a reachable server from the text of `INFO server`, `INFO replication` and
 * `INFO persistence` (the same text three times when given a full `INFO`) and the `CONFIG GET
 * min-replicas-to-write` reply. Pure, so the offset rules are tested on captured outputs.
 */
export function observationFromInfo(
  serverText: string,
  replicationText: string,
  persistenceText: string,
  minReplicasReply: unknown,
  keyspaceText = '',
): ReachableRedisObservation {
  const server = parseServerInfo(serverText);
  const replication = parseReplicationInfo(replicationText);
  const replica = replication.role === 'replica';
  const neverSynced = replica && replication.replicationStreamOffset === 0;
  const loading = parseLoading(persistenceText);
  const keys = parseKeyCount(keyspaceText);
  const offset = !replica ? replication.replicationStreamOffset : neverSynced ? 0 : (replication.appliedOffset ?? 0);
  return {
    reachable: true,
    role: replication.role,
    runId: server.runId,
    redisVersion: server.redisVersion,
    replicationId: replication.replicationId,
    offset,
    position: positionOf(replication, offset, keys, loading),
    keys,
    primaryHost: replication.primaryHost,
    primaryPort: replication.primaryPort,
    primaryLinkUp: replica && replication.primaryLinkUp,
    primaryLastIoSecondsAgo: replication.primaryLastIoSecondsAgo,
    primaryLinkDownSinceSeconds: replication.primaryLinkDownSinceSeconds,
    syncInProgress: replication.syncInProgress,
    connectedReplicas: replication.connectedReplicas,
    minReplicasToWrite: parseMinReplicasToWrite(minReplicasReply),
    loading,
    failoverState: replication.failoverState,
  };
}

/** CONFIG GET answers `[name, value]`; unknown (e.g. refused while loading) reads as 0, Redis' default. */
function parseMinReplicasToWrite(reply: unknown): number {
  if (Array.isArray(reply) && reply.length >= 2) {
    return Number(reply[1]);
  }
  return 0;
}

/**
 * What the data set provably holds. A primary's history starts at its promotion, so it is always known (an empty one
 * at offset 0). A replica
 * with `master_repl_offset:0` has no history of its own: empty when it holds no key, unknown when it does (it loaded
 * an AOF, which restores keys but not the replication position).
 */
export function positionOf(replication: ReplicationInfo, offset: number, keys: number, loading: boolean): ReplicationPosition {
  if (loading) return { kind: 'unknown', why: 'it is loading its data set' };
  if (replication.role === 'replica' && replication.syncInProgress) return { kind: 'unknown', why: 'a full sync is in progress' };
  if (replication.role === 'replica' && replication.replicationStreamOffset === 0) {
    return keys === 0 ? { kind: 'empty', replicationId: replication.replicationId } : { kind: 'unknown', why: `it holds ${keys} keys but no replication position (restarted from AOF)` };
  }
  return {
    kind: 'known',
    replicationId: replication.replicationId,
    offset,
    secondaryReplicationId: replication.secondaryReplicationId,
    secondaryOffset: replication.secondaryReplicationOffset !== undefined && replication.secondaryReplicationOffset >= 0 ? replication.secondaryReplicationOffset : undefined,
  };
}
