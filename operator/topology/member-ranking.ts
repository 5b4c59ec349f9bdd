import type { ReachableRedisObservation } from '../redis/observation';
import type { ClusterMember } from './types';

/** A member that answered its probe and is not loading: the only kind the planner acts on or through. */
export interface ServingMember extends ClusterMember {
  readonly address: string;
  readonly observation: ReachableRedisObservation;
}

export function isServing(member: ClusterMember): member is ServingMember {
  return (
    member.address !== null &&
    member.observation !== null &&
    member.observation.reachable &&
    !member.observation.loading
  );
}

/**
 * The member holding the longest prefix of the shared replication stream: highest offset; on a tie the one
 * already primary (saves a promotion, e.g. when a controller died right after promoting), then the lowest
 * ordinal (a fresh cluster elects ordinal 0).
 */
export function mostAdvanced(members: readonly ServingMember[]): ServingMember | undefined {
  return [...members].sort(
    (a, b) =>
      b.observation.offset - a.observation.offset ||
      primaryFirst(a) - primaryFirst(b) ||
      a.ordinal - b.ordinal,
  )[0];
}

function primaryFirst(member: ServingMember): number {
  return member.observation.role === 'primary' ? 0 : 1;
}
