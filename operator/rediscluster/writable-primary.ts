import type { ClusterMember } from '../topology';

/**
 * Whether the member accepts writes right now: it answers as primary, carries the label the client Service selects,
 * and has at least `min-replicas-to-write` replicas online that acknowledged within `min-replicas-max-lag` seconds
 * (otherwise every write gets -NOREPLICAS, and calling the cluster Available would be a lie).
 */
export function writablePrimary(member: ClusterMember | undefined, minReplicasToWrite: number, minReplicasMaxLagSeconds: number): boolean {
  const observation = member?.observation;
  if (!member?.labelledPrimary || observation?.reachable !== true || observation.role !== 'primary' || observation.loading) return false;
  const goodReplicas = observation.connectedReplicas.filter((replica) => replica.state === 'online' && replica.lagSeconds <= minReplicasMaxLagSeconds).length;
  return goodReplicas >= minReplicasToWrite;
}
