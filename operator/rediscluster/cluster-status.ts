import type { Condition, RedisClusterConditionType, RedisClusterPhase, RedisClusterStatus } from '../../src/api';
import { podSelectorString } from '../../src/naming';
import type { TopologyPlan } from '../topology';

/** One condition as the controller decides it, before timestamps. */
export interface ConditionDecision {
  readonly type: RedisClusterConditionType;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
}

/** What the status is computed from. Pure data: the reconciler gathers it. */
export interface StatusInput {
  readonly clusterName: string;
  readonly generation: number | undefined;
  readonly desiredReplicas: number;
  readonly version: string;
  readonly previous: RedisClusterStatus | undefined;
  /** Pods that exist (not being deleted). */
  readonly existingPods: number;
  /** Whether the primary named by the plan answered PING as a primary and carries the label. */
  readonly primaryServing: boolean;
  readonly plan: TopologyPlan | undefined;
  /** A problem that stops the controller from acting (missing Secret, pods that cannot start). */
  readonly blockingProblem?: { readonly reason: string; readonly message: string };
  /** A rollout, scale or switchover in flight. */
  readonly progress?: { readonly reason: string; readonly message: string };
  /** Every pod runs the desired revision. */
  readonly rolloutComplete: boolean;
  readonly failedOverAt?: string;
  /** The durable primary decision, carried over unchanged (only the record step writes it). */
  readonly primaryRecord?: RedisClusterStatus['primaryRecord'];
  readonly now: string;
}

/** Serving pods: the primary plus linked replicas, capped at the desired count (pods being scaled away may still be linked). */
function readyCount(input: StatusInput): number {
  return Math.min(input.desiredReplicas, (input.plan?.readyReplicas ?? 0) + (input.primaryServing ? 1 : 0));
}

/** The conditions for an input (Ready never True while the primary does not serve). */
export function decideConditions(input: StatusInput): ConditionDecision[] {
  const ready = readyCount(input);
  // A blocking problem (a container that cannot start, a missing Secret) keeps Ready False even if Redis serves:
  // the cluster is not what the spec asks for, and phase says Failed.
  const allReady = input.primaryServing && ready >= input.desiredReplicas && input.rolloutComplete && !input.progress && !input.blockingProblem;
  const planReason = input.plan?.reason ?? 'Waiting for pods';
  const readyDecision: ConditionDecision = allReady
    ? { type: 'Ready', status: 'True', reason: 'AllReplicasReady', message: `${ready}/${input.desiredReplicas} pods serve; primary ${input.plan?.primary}` }
    : {
        type: 'Ready',
        status: 'False',
        reason: input.blockingProblem?.reason ?? (input.primaryServing ? 'ReplicasNotReady' : 'PrimaryNotServing'),
        message: input.blockingProblem?.message ?? `${ready}/${input.desiredReplicas} pods serve: ${planReason}`,
      };
  const available: ConditionDecision = input.primaryServing
    ? { type: 'Available', status: 'True', reason: 'PrimaryServing', message: `primary ${input.plan?.primary} accepts writes` }
    : { type: 'Available', status: 'False', reason: 'NoServingPrimary', message: input.blockingProblem?.message ?? planReason };
  const progressing: ConditionDecision = input.progress
    ? { type: 'Progressing', status: 'True', reason: input.progress.reason, message: input.progress.message }
    : input.plan && input.plan.actions.some((action) => action.kind !== 'emitEvent')
      ? { type: 'Progressing', status: 'True', reason: 'TopologyConverging', message: planReason }
      : { type: 'Progressing', status: 'False', reason: 'Stable', message: 'no change in progress' };
  const degradedReason = input.blockingProblem
    ? input.blockingProblem
    : input.plan?.health === 'Degraded' || input.plan?.health === 'PrimarySuspect'
      ? { reason: input.plan.health === 'Degraded' ? 'TopologyDegraded' : 'PrimarySuspect', message: planReason }
      : undefined;
  const degraded: ConditionDecision = degradedReason
    ? { type: 'Degraded', status: 'True', ...degradedReason }
    : { type: 'Degraded', status: 'False', reason: 'Healthy', message: 'no fault observed' };
  return [readyDecision, available, progressing, degraded];
}

function phaseOf(input: StatusInput, conditions: ConditionDecision[]): RedisClusterPhase {
  const is = (type: RedisClusterConditionType) => conditions.find((condition) => condition.type === type)?.status === 'True';
  if (input.blockingProblem) return 'Failed';
  if (is('Ready')) return 'Ready';
  if (input.plan?.actions.some((action) => action.kind === 'promote' || action.kind === 'switchover')) return 'FailingOver';
  // A cluster that ever had a primary recorded is established: an outage is Degraded or FailingOver, not Provisioning.
  if (input.primaryRecord === undefined && input.previous?.primary === undefined && !input.primaryServing) return 'Provisioning';
  if (is('Degraded')) return 'Degraded';
  return 'Provisioning';
}

/** Keeps lastTransitionTime when a condition's status did not change (API conventions). */
function withTimes(decisions: ConditionDecision[], previous: readonly Condition[] | undefined, generation: number | undefined, now: string): Condition[] {
  return decisions.map((decision) => {
    const before = previous?.find((condition) => condition.type === decision.type);
    return {
      ...decision,
      observedGeneration: generation,
      lastTransitionTime: before && before.status === decision.status ? before.lastTransitionTime : now,
    };
  });
}

/** The status to write. Pure. */
export function computeStatus(input: StatusInput): RedisClusterStatus {
  const decisions = decideConditions(input);
  const ready = readyCount(input);
  return {
    phase: phaseOf(input, decisions),
    replicas: input.existingPods,
    readyReplicas: ready,
    ready: `${ready}/${input.desiredReplicas}`,
    primary: input.primaryServing ? (input.plan?.primary ?? undefined) : undefined,
    primaryRecord: input.primaryRecord,
    selector: podSelectorString(input.clusterName),
    currentVersion: input.rolloutComplete ? input.version : input.previous?.currentVersion,
    lastFailoverTime: input.failedOverAt ?? input.previous?.lastFailoverTime,
    observedGeneration: input.generation,
    conditions: withTimes(decisions, input.previous?.conditions, input.generation, input.now),
  };
}

/** True when writing `next` would change nothing a reader cares about. */
export function statusUnchanged(previous: RedisClusterStatus | undefined, next: RedisClusterStatus): boolean {
  return JSON.stringify(normalize(previous)) === JSON.stringify(normalize(next));
}

/** Canonical JSON: keys sorted at every depth (the apiserver returns them sorted), conditions sorted by type. */
function normalize(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = value.map(normalize);
    const byType = (item: unknown) => (item && typeof item === 'object' && 'type' in item ? String((item as { type: unknown }).type) : '');
    return items.every((item) => byType(item) !== '') ? [...items].sort((a, b) => byType(a).localeCompare(byType(b))) : items;
  }
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, entry]) => entry !== undefined)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, entry]) => [key, normalize(entry)]),
    );
  }
  return value;
}
