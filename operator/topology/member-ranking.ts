import { answeredWithError, type ReachableRedisObservation } from '../redis/observation';
import type { ClusterMember, PrimaryRecord } from './types';

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
 * The server is alive even though it is not usable: it replied with an error (`-WRONGPASS`, `-NOAUTH`, `-BUSY`) or
 * is loading its data set. Invariant I4: this never counts as "primary down".
 */
export function isAliveButNotServing(member: ClusterMember): boolean {
  if (answeredWithError(member.observation)) return true;
  return member.observation?.reachable === true && member.observation.loading;
}

/** What to call a member that cannot take part in an election, for a reason a human reads. */
export function whyNotComparable(member: ClusterMember): string | undefined {
  if (member.address === null) return `${member.name} (no running pod)`;
  const observation = member.observation;
  if (observation === null) return `${member.name} (not probed)`;
  if (!observation.reachable) {
    return `${member.name} (${answeredWithError(observation) ? 'refuses the controller' : 'unreachable'}: ${observation.error.message})`;
  }
  if (observation.position.kind === 'unknown') return `${member.name} (position unknown: ${observation.position.why})`;
  return undefined;
}

/**
 * Whether a position belongs to the recorded history (directly, or as the history before a promotion). An empty
 * replica belongs to it at offset 0 when it synced from the (then empty) primary of that history.
 */
function sharesHistory(observation: ReachableRedisObservation, replicationId: string | undefined): boolean {
  const position = observation.position;
  if (position.kind === 'empty') return replicationId !== undefined && position.replicationId === replicationId;
  if (position.kind !== 'known') return false;
  return replicationId === undefined || position.replicationId === replicationId || position.secondaryReplicationId === replicationId;
}

function knownOffset(observation: ReachableRedisObservation): number {
  if (observation.position.kind === 'empty') return 0;
  return observation.position.kind === 'known' ? observation.position.offset : -1;
}

/** The outcome of an election: one provably current member, or why none can be chosen. */
export type ElectionOutcome =
  | { readonly kind: 'chosen'; readonly member: ServingMember; readonly basis: string }
  | { readonly kind: 'wait'; readonly reason: string };

/**
 * Invariant I1: picks the member that provably holds every write the recorded history acknowledged, or says what
 * the choice waits for. A write acknowledged with `WAIT 1` reached the primary and at least one other member, so
 * when every member other than the failed primary reports a comparable position (known, or empty), the one with
 * the highest offset in the recorded history holds all of them. Any member whose position cannot be compared
 * (unreachable, refusing, loading, restarted from AOF) might hold a write nobody else has: then nobody is chosen.
 *
 * `eligible` narrows who may *win* (not Terminating, not being scaled away); every member still counts as a
 * possible holder of acknowledged writes.
 */
export function electProvablyCurrent(
  members: readonly ClusterMember[],
  failedPrimary: string | undefined,
  record: PrimaryRecord | undefined,
  eligible: (member: ClusterMember) => boolean,
): ElectionOutcome {
  const others = members.filter((member) => member.name !== failedPrimary);
  const blockers = others.map(whyNotComparable).filter((why): why is string => why !== undefined);
  if (blockers.length > 0) {
    return { kind: 'wait', reason: `waiting for ${blockers.join(', ')}: any of them may hold acknowledged writes no other member has` };
  }
  const serving = others.filter(isServing);
  let history = record?.replicationId;
  if (history === undefined) {
    // No history recorded yet (a cluster created by an older controller): the known positions must agree on one.
    const histories = new Set(serving.flatMap((member) => (member.observation.position.kind === 'known' ? [member.observation.position.replicationId] : [])));
    if (histories.size > 1) {
      return { kind: 'wait', reason: `members report ${histories.size} different replication histories and none is recorded: choose one with the force-primary annotation` };
    }
    history = [...histories][0];
  }
  const inHistory = serving.filter((member) => sharesHistory(member.observation, history));
  const best = [...inHistory].sort((a, b) => knownOffset(b.observation) - knownOffset(a.observation) || a.ordinal - b.ordinal)[0];
  if (best === undefined) {
    const seen = serving.map((member) => `${member.name} ${describePosition(member.observation)}`).join(', ');
    return { kind: 'wait', reason: `no member holds the recorded replication history ${history ?? '(none recorded)'}: ${seen || 'no member serves'}` };
  }
  const winner = inHistory
    .filter((member) => eligible(member) && knownOffset(member.observation) === knownOffset(best.observation))
    .sort((a, b) => a.ordinal - b.ordinal)[0];
  if (winner === undefined) {
    return { kind: 'wait', reason: `${best.name} holds the most writes (offset ${knownOffset(best.observation)}) but may not become primary (Terminating or being scaled away)` };
  }
  return { kind: 'chosen', member: winner, basis: `it holds the recorded history at the highest offset (${knownOffset(winner.observation)}) and every other member's position is known` };
}

function describePosition(observation: ReachableRedisObservation): string {
  const position = observation.position;
  if (position.kind === 'known') return `at ${position.replicationId}:${position.offset}`;
  return position.kind === 'empty' ? 'is empty' : `has an unknown position (${position.why})`;
}
