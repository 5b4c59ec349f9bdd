import type { ClusterMember } from '../topology';

/** The next planned (non-failure) change to make, one at a time. */
export type RolloutStep =
  | { readonly kind: 'none' }
  | { readonly kind: 'wait'; readonly reason: string }
  /** Delete a replica pod so the StatefulSet recreates it from the new template. */
  | { readonly kind: 'restartPod'; readonly pod: string; readonly reason: string }
  /** Hand the primary role to an up-to-date replica before the primary itself is touched. */
  | { readonly kind: 'switchover'; readonly from: string; readonly to: string; readonly reason: string };

export interface RolloutInput {
  readonly members: readonly ClusterMember[];
  /** Pod name → controller-revision-hash label. */
  readonly podRevisions: ReadonlyMap<string, string | undefined>;
  /** Pod name → Ready condition. */
  readonly podReady: ReadonlyMap<string, boolean>;
  /** The StatefulSet's updateRevision (undefined until the StatefulSet controller reported it). */
  readonly updateRevision: string | undefined;
  readonly desiredReplicas: number;
  /** The serving primary, or null. */
  readonly primary: string | null;
  /** The topology has nothing left to do. */
  readonly topologySettled: boolean;
}

/** The replica that loses nothing if promoted: linked to the primary, highest offset, then lowest ordinal. */
export function bestSwitchoverTarget(members: readonly ClusterMember[], primary: ClusterMember, eligible: (member: ClusterMember) => boolean): ClusterMember | undefined {
  return members
    .filter((member) => member.name !== primary.name && eligible(member))
    .filter((member) => {
      const observation = member.observation;
      return observation?.reachable === true && observation.role === 'replica' && observation.primaryLinkUp && observation.primaryHost === primary.address;
    })
    .sort((a, b) => {
      const offsetA = a.observation?.reachable ? a.observation.offset : -1;
      const offsetB = b.observation?.reachable ? b.observation.offset : -1;
      return offsetB - offsetA || a.ordinal - b.ordinal;
    })[0];
}

/**
 * Orders planned changes the safe way: scale-down never removes the primary (switch over first); a new pod
 * template reaches replicas first (highest ordinal first), then a switchover, then the old primary. Nothing moves
 * while the topology is converging or a pod is not Ready. Pure.
 */
export function planRollout(input: RolloutInput): RolloutStep {
  const primary = input.members.find((member) => member.name === input.primary);
  if (!primary || !input.topologySettled) return { kind: 'wait', reason: 'the replication topology is not settled' };

  if (primary.ordinal >= input.desiredReplicas) {
    const target = bestSwitchoverTarget(input.members, primary, (member) => member.ordinal < input.desiredReplicas);
    if (!target) return { kind: 'wait', reason: `scale-down waits for a replica below ordinal ${input.desiredReplicas} to catch up` };
    return { kind: 'switchover', from: primary.name, to: target.name, reason: `scale-down to ${input.desiredReplicas} removes primary ${primary.name}` };
  }

  if (!input.updateRevision) return { kind: 'none' };
  const current = input.members.filter((member) => member.ordinal < input.desiredReplicas);
  const outdated = current.filter((member) => input.podRevisions.get(member.name) !== input.updateRevision);
  if (outdated.length === 0) return { kind: 'none' };
  const notReady = current.filter((member) => !input.podReady.get(member.name));
  if (notReady.length > 0) return { kind: 'wait', reason: `rollout waits for ${notReady.map((member) => member.name).join(', ')} to be Ready` };

  const outdatedReplicas = outdated.filter((member) => member.name !== primary.name).sort((a, b) => b.ordinal - a.ordinal);
  if (outdatedReplicas.length > 0) {
    return { kind: 'restartPod', pod: outdatedReplicas[0].name, reason: `rolling replica ${outdatedReplicas[0].name} to revision ${input.updateRevision}` };
  }
  const target = bestSwitchoverTarget(input.members, primary, (member) => member.ordinal < input.desiredReplicas);
  if (target) return { kind: 'switchover', from: primary.name, to: target.name, reason: `rolling primary ${primary.name}: switching over first` };
  if (current.length === 1) return { kind: 'restartPod', pod: primary.name, reason: 'single-pod cluster: restarting the primary (brief downtime)' };
  return { kind: 'wait', reason: 'rollout waits for a replica to catch up before switching over' };
}
