import { parseLoading, parseReplicationInfo, parseServerInfo } from './info-parser';
import type { ReachableRedisObservation } from './observation';

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
): ReachableRedisObservation {
  const server = parseServerInfo(serverText);
  const replication = parseReplicationInfo(replicationText);
  const replica = replication.role === 'replica';
  const neverSynced = replica && replication.replicationStreamOffset === 0;
  return {
    reachable: true,
    role: replication.role,
    runId: server.runId,
    redisVersion: server.redisVersion,
    replicationId: replication.replicationId,
    offset: !replica ? replication.replicationStreamOffset : neverSynced ? 0 : (replication.appliedOffset ?? 0),
    primaryHost: replication.primaryHost,
    primaryPort: replication.primaryPort,
    primaryLinkUp: replica && replication.primaryLinkUp,
    primaryLastIoSecondsAgo: replication.primaryLastIoSecondsAgo,
    primaryLinkDownSinceSeconds: replication.primaryLinkDownSinceSeconds,
    syncInProgress: replication.syncInProgress,
    connectedReplicas: replication.connectedReplicas,
    minReplicasToWrite: parseMinReplicasToWrite(minReplicasReply),
    loading: parseLoading(persistenceText),
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
