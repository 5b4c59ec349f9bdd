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
  readonly now: string;
}

/** The conditions for an input (Ready never True while the primary does not serve). */
export function decideConditions(input: StatusInput): ConditionDecision[] {
  const ready = (input.plan?.readyReplicas ?? 0) + (input.primaryServing ? 1 : 0);
  const allReady = input.primaryServing && ready >= input.desiredReplicas && input.rolloutComplete && !input.progress;
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
    : input.plan && input.plan.actions.length > 0
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
  if (input.plan?.actions.some((action) => action.kind === 'promote')) return 'FailingOver';
  if (input.previous?.primary === undefined && !input.primaryServing) return 'Provisioning';
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
  const ready = (input.plan?.readyReplicas ?? 0) + (input.primaryServing ? 1 : 0);
  return {
    phase: phaseOf(input, decisions),
    replicas: input.existingPods,
    readyReplicas: ready,
    ready: `${ready}/${input.desiredReplicas}`,
    primary: input.primaryServing ? (input.plan?.primary ?? undefined) : undefined,
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

function normalize(status: RedisClusterStatus | undefined): unknown {
  if (!status) return undefined;
  const entries = Object.entries(status).filter(([, value]) => value !== undefined);
  return Object.fromEntries(
    entries
      .map(([key, value]) =>
        key === 'conditions'
          ? [key, [...(value as Condition[])].sort((a, b) => a.type.localeCompare(b.type)).map((c) => ({ ...c, observedGeneration: c.observedGeneration ?? undefined }))]
          : [key, value],
      )
      .sort(([a], [b]) => String(a).localeCompare(String(b))),
  );
}
