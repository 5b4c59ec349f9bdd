import type { Logger } from 'pino';
import type { EventRecorder, KubernetesObject, ObjectKey, ReconcileContext, ReconcileResult } from '../runtime';
import { FORCE_PRIMARY_ANNOTATION, REDIS_PORT, ROLE_LABEL, selectorLabels } from '../../src/naming';
import { planTopology, type ClusterMember, type PrimaryRecord, type TopologyPlan } from '../topology';
import { REDIS_CLUSTER_GVK, isPodReady, ordinalOf, type PodObject, type RedisClusterObject, type StatefulSetObject } from './cluster-object';
import { computeStatus, statusUnchanged, type StatusInput } from './cluster-status';
import { desiredState, type DesiredState } from './desired-state';
import { throwIfLeadershipLost } from './leadership';
import { LiveConfigTracker } from './live-config';
import { observeMembers } from './observe-members';
import { ensurePassword, PasswordUnavailableError } from './password-secret';
import { rotatePassword, rotationUnderWay } from './password-rotation';
import type { ClusterMemory, RedisClusterReconcilerOptions } from './reconciler';
import { planRollout } from './rollout-plan';
import { isSubsetOf } from './subset-equal';
import { executeTopologyActions, labelPodFresh, replicaLabelChanges } from './topology-executor';
import { writablePrimary } from './writable-primary';

const REVISION_LABEL = 'controller-revision-hash';
const HEALTHY_RECHECK_MILLISECONDS = 30_000;
const SWITCHOVER_RETRY_FIRST_MILLISECONDS = 10_000;
const SWITCHOVER_RETRY_MAX_MILLISECONDS = 300_000;

/** The reconciler's collaborators, with its clocks resolved, and what this one pass is about. */
export interface ClusterPassOptions extends Omit<RedisClusterReconcilerOptions, 'now' | 'monotonicNow'> {
  readonly cluster: RedisClusterObject;
  readonly key: ObjectKey;
  readonly context: ReconcileContext;
  readonly memory: ClusterMemory;
  readonly liveConfig: LiveConfigTracker;
  readonly now: () => number;
  readonly monotonicNow: () => number;
}

type Progress = { readonly reason: string; readonly message: string };

/**
 * One reconcile of a live cluster, as named steps around one observation (docs/failover.md, "The reconcile"). Each
 * step returns early when it cannot go on; nothing after `observe` decides from anything older than that observation
 * and the record it read.
 */
export class ClusterPass {
  private cluster: RedisClusterObject;
  private readonly name: string;
  private readonly namespace: string;
  private readonly logger: Logger;
  private readonly signal: AbortSignal;
  private readonly pods: PodObject[];
  private readonly podResourceVersions: Map<string, string | undefined>;

  constructor(private readonly options: ClusterPassOptions) {
    this.cluster = options.cluster;
    this.name = options.cluster.metadata.name!;
    this.namespace = options.cluster.metadata.namespace!;
    this.logger = options.context.logger;
    this.signal = options.context.signal;
    this.pods = this.podsOf();
    this.podResourceVersions = new Map(this.pods.map((pod) => [pod.metadata.name!, pod.metadata.resourceVersion]));
  }

  async run(): Promise<ReconcileResult> {
    const desired = this.desired();
    // Ensure the password.
    let password: string;
    try {
      password = await this.ensurePassword(desired);
    } catch (error) {
      if (!(error instanceof PasswordUnavailableError)) throw error;
      await this.event('Warning', 'PasswordUnavailable', error.message);
      await this.writeStatus(desired, { plan: undefined, primaryServing: false, blockingProblem: { reason: 'PasswordUnavailable', message: error.message }, rolloutComplete: false });
      // Secrets are not watched (least privilege), so a Secret created later is found by looking again.
      return { requeueAfterMs: 5000 };
    }
    // Ensure the children.
    await this.applyChildren(desired);
    // Roll a password change out in two phases (old and new both valid meanwhile).
    const passwordMemory = this.options.memory.password;
    const rotation = rotationUnderWay(passwordMemory, password)
      ? await rotatePassword(this.options.admin, this.pods, password, passwordMemory, this.options.monotonicNow(), () => this.guard())
      : undefined;
    // Observe every member once.
    const members = await observeMembers(this.options.admin, this.name, this.pods, password);
    if (members.some((member) => member.observation?.reachable)) passwordMemory.lastAccepted = password;
    // Decide the topology (pure).
    const plan = this.holdSwitchoverDuringBackoff(this.decide(desired, members));
    if (plan.actions.length > 0 || plan.record) this.logger.info({ actions: plan.actions, record: plan.record, reason: plan.reason }, 'topology plan');
    // Record the decision before acting on it (I5), then act, fenced (I2, I6). The planner's memory (the detection
    // timer) is kept only once the record is written: a decision refused with 409 is taken again on the retry, not
    // after a whole new detection period.
    if (plan.record) await this.writeRecord(plan.record);
    this.options.memory.topology = plan.memory;
    const execution = await this.execute(plan.actions, members, password);
    if (execution.switchoverAborted !== undefined) await this.switchoverAborted(plan, execution.switchoverAborted);
    if (plan.record && this.forcedPrimary() === plan.record.primary) await this.clearForcePrimary();
    await this.labelReplicas(members, plan.primary);
    const configProblem = await this.applyLiveConfig(members, desired.liveConfigParameters, password);
    // Rollout: planned restarts and switchovers, one step at a time.
    const topologySettled = !plan.actions.some((action) => action.kind !== 'emitEvent') && plan.health === 'Healthy';
    const primaryMember = members.find((member) => member.name === plan.primary);
    const primaryChanging = plan.actions.some((action) => action.kind === 'promote' || action.kind === 'switchover' || action.kind === 'labelPrimary');
    const primaryServing = !primaryChanging && writablePrimary(primaryMember, desired.spec.minReplicasToWrite, desired.spec.minReplicasMaxLagSeconds);
    const progress = await this.rollout(desired, members, plan, primaryMember, topologySettled, password);
    const existingPods = this.pods.filter((pod) => !pod.metadata.deletionTimestamp && (ordinalOf(this.name, pod.metadata.name!) ?? Infinity) < desired.spec.replicas);
    const scaling = existingPods.length !== desired.spec.replicas ? { reason: 'Scaling', message: `${existingPods.length} of ${desired.spec.replicas} pods exist` } : undefined;
    // One summary, from which phase and conditions follow.
    await this.writeStatus(desired, {
      plan,
      primaryServing,
      progress: progress.step ?? scaling ?? (rotation ? { reason: 'PasswordRotation', message: rotation } : undefined),
      blockingProblem: configProblem,
      rolloutComplete: progress.complete && existingPods.length === desired.spec.replicas,
      failedOverAt: execution.promoted ? new Date(this.options.now()).toISOString() : undefined,
    });
    this.options.watchdog.watch(this.options.key, primaryMember?.address ? { host: primaryMember.address, port: REDIS_PORT, password } : undefined);
    return { requeueAfterMs: this.nextCheckMilliseconds(plan, progress.step !== undefined || scaling !== undefined) };
  }

  /** Carries planned actions out, fenced by the lease and with the label preconditions of this pass. */
  private execute(actions: TopologyPlan['actions'], members: readonly ClusterMember[], password: string) {
    return executeTopologyActions(actions, {
      client: this.options.client,
      admin: this.options.admin,
      recorder: this.options.recorder as EventRecorder,
      cluster: this.cluster,
      members,
      password,
      podResourceVersions: this.podResourceVersions,
      signal: this.signal,
      leaseCurrent: this.options.leaseCurrent,
    });
  }

  /** I6: before every Redis command and API write. */
  private guard(): void {
    throwIfLeadershipLost(this.signal, this.options.leaseCurrent);
  }

  private desired(): DesiredState {
    const labelledPrimary = this.pods.find((pod) => pod.metadata.labels?.[ROLE_LABEL] === 'primary');
    const recorded = this.cluster.status?.primaryRecord?.primary ?? labelledPrimary?.metadata.name;
    const replicas = this.cluster.spec?.replicas ?? 3;
    const ordinals = this.pods.map((pod) => ordinalOf(this.name, pod.metadata.name!) ?? -1);
    const existing = ordinals.length === 0 ? 0 : Math.max(...ordinals) + 1;
    // Scale-down must not delete the primary's pod before a switchover: keep it in the StatefulSet until then.
    const primaryOrdinal = recorded ? ordinalOf(this.name, recorded) : undefined;
    let keepPods = primaryOrdinal !== undefined && primaryOrdinal >= replicas ? primaryOrdinal + 1 : undefined;
    // Nor may it delete a replica while the primary is not serving: that replica may hold acknowledged writes no
    // other member has (I1), so scale-down waits for a writable primary.
    const available = this.cluster.status?.conditions?.some((condition) => condition.type === 'Available' && condition.status === 'True') ?? false;
    if (!available && existing > replicas) keepPods = Math.max(keepPods ?? 0, existing);
    return desiredState(this.cluster, keepPods);
  }

  private ensurePassword(desired: DesiredState): Promise<string> {
    this.guard();
    return ensurePassword(this.options.client, this.cluster, desired, this.signal);
  }

  /** The children are independent objects: apply the ones that differ from the cache, together. */
  private async applyChildren(desired: DesiredState): Promise<void> {
    await Promise.all(
      desired.manifests.map(async (manifest) => {
        const live = this.options.caches.owned.get(`${manifest.apiVersion}/${manifest.kind}`)?.store.get({ namespace: this.namespace, name: manifest.metadata.name });
        if (live && isSubsetOf(manifest, live)) return;
        this.guard();
        this.logger.info({ kind: manifest.kind, name: manifest.metadata.name }, live ? 'object drifted from desired state; applying' : 'creating object');
        await this.options.client.apply(manifest as unknown as KubernetesObject, { signal: this.signal });
      }),
    );
  }

  private decide(desired: DesiredState, members: ClusterMember[]): TopologyPlan {
    const record = this.cluster.status?.primaryRecord;
    return planTopology({
      members,
      desiredReplicas: desired.spec.replicas,
      record: record ? { primary: record.primary, epoch: record.epoch, replicationId: record.replicationId } : undefined,
      automaticFailover: desired.spec.automaticFailover,
      forcedPrimary: this.forcedPrimary(),
      failureDetectionMilliseconds: desired.spec.failureDetectionMilliseconds,
      minReplicasToWrite: desired.spec.minReplicasToWrite,
      minReplicasMaxLagSeconds: desired.spec.minReplicasMaxLagSeconds,
      redisPort: REDIS_PORT,
      nowMilliseconds: this.options.monotonicNow(),
      memory: this.options.memory.topology,
    });
  }

  /** I5: the record is written with the resourceVersion the decision was made from; a stale decision gets 409. */
  private async writeRecord(record: PrimaryRecord): Promise<void> {
    this.guard();
    const overwritten = this.cluster.metadata.resourceVersion;
    const updated = await this.options.client.patchStatus<RedisClusterObject>(
      { ...REDIS_CLUSTER_GVK, namespace: this.namespace, name: this.name },
      { primaryRecord: { ...record } },
      { resourceVersion: overwritten, signal: this.signal },
    );
    this.cluster = updated;
    rememberOverwritten(this.options.memory, overwritten);
    this.options.memory.writtenEpoch = Math.max(this.options.memory.writtenEpoch ?? 0, record.epoch);
  }

  /**
   * An aborted switchover is not retried before its back-off ends (docs/failover.md, the switchover recipe), whether
   * the rollout asks for it or the planner does (a Terminating primary): the primary stays and nothing is recorded.
   */
  private holdSwitchoverDuringBackoff(plan: TopologyPlan): TopologyPlan {
    const switchover = plan.actions.find((action) => action.kind === 'switchover');
    const notBefore = this.options.memory.switchoverNotBefore;
    if (switchover?.kind !== 'switchover' || notBefore === undefined || this.options.monotonicNow() >= notBefore) return plan;
    return {
      ...plan,
      actions: plan.actions.filter((action) => action !== switchover),
      record: undefined,
      primary: switchover.from,
      reason: `${plan.reason}; the last switchover aborted, retrying later`,
    };
  }

  /** A planned switchover did not happen: the old primary stays; record it again and back off before retrying. */
  private async switchoverAborted(plan: TopologyPlan, reason: string): Promise<void> {
    const switchover = plan.actions.find((action) => action.kind === 'switchover');
    if (switchover?.kind !== 'switchover' || !plan.record) return;
    await this.writeRecord({ primary: switchover.from, epoch: plan.record.epoch + 1 });
    this.backOffSwitchover();
    await this.event('Warning', 'SwitchoverAborted', `switchover to ${switchover.to} aborted (${reason}); ${switchover.from} stays primary`);
  }

  private backOffSwitchover(): void {
    const memory = this.options.memory;
    const delay = Math.min(SWITCHOVER_RETRY_MAX_MILLISECONDS, memory.switchoverBackoffMilliseconds === undefined ? SWITCHOVER_RETRY_FIRST_MILLISECONDS : memory.switchoverBackoffMilliseconds * 2);
    memory.switchoverBackoffMilliseconds = delay;
    memory.switchoverNotBefore = this.options.monotonicNow() + delay;
  }

  private forcedPrimary(): string | undefined {
    return this.cluster.metadata.annotations?.[FORCE_PRIMARY_ANNOTATION];
  }

  /** The escape hatch is for one decision: once recorded, the annotation goes so it cannot force a later one. */
  private async clearForcePrimary(): Promise<void> {
    this.guard();
    // Keep the object it returns: the status write that follows is conditional on its resourceVersion.
    this.cluster = await this.options.client.mergePatch<RedisClusterObject>(
      { ...REDIS_CLUSTER_GVK, namespace: this.namespace, name: this.name },
      { metadata: { annotations: { [FORCE_PRIMARY_ANNOTATION]: null } } },
      { signal: this.signal },
    );
  }

  private async labelReplicas(members: readonly ClusterMember[], primary: string | null): Promise<void> {
    const currentLabels = new Map(this.pods.map((pod) => [pod.metadata.name!, pod.metadata.labels?.[ROLE_LABEL]]));
    for (const change of replicaLabelChanges(members, primary, currentLabels)) {
      const options = { resourceVersion: this.podResourceVersions.get(change.pod), signal: this.signal, leaseCurrent: this.options.leaseCurrent };
      this.podResourceVersions.set(change.pod, await labelPodFresh(this.options.client, this.namespace, change.pod, change.role, options));
    }
  }

  /**
   * CONFIG SET the live parameters on pods that restarted or whose parameters changed, nowhere else. A parameter Redis
   * refuses is reported (status and an Event), not retried blindly, and does not stop the rest of the reconcile.
   */
  private async applyLiveConfig(members: readonly ClusterMember[], parameters: Readonly<Record<string, string>>, password: string): Promise<Progress | undefined> {
    const tracker = this.options.liveConfig;
    tracker.keepOnly(this.options.key, new Set(members.map((member) => member.name)));
    const problems: string[] = [];
    await Promise.all(
      members.map(async (member) => {
        if (!member.address || !member.observation?.reachable) return;
        const stamp = LiveConfigTracker.stamp(member.observation.runId, parameters);
        if (tracker.isApplied(this.options.key, member.name, stamp)) return;
        this.guard();
        try {
          await this.options.admin.configSet({ host: member.address, port: REDIS_PORT, password }, parameters);
          tracker.markApplied(this.options.key, member.name, stamp);
        } catch (error) {
          if (!(error instanceof Error) || error.name !== 'RedisCommandError') throw error;
          problems.push(`${member.name}: ${error.message}`);
        }
      }),
    );
    if (problems.length === 0) return undefined;
    const message = `Redis refused the configuration: ${problems.join('; ')}`;
    await this.event('Warning', 'ConfigRejected', message);
    return { reason: 'ConfigRejected', message };
  }

  private async rollout(
    desired: DesiredState,
    members: readonly ClusterMember[],
    plan: TopologyPlan,
    primaryMember: ClusterMember | undefined,
    topologySettled: boolean,
    password: string,
  ): Promise<{ step?: Progress; complete: boolean }> {
    const statefulSet = this.options.caches.owned.get('apps/v1/StatefulSet')?.store.get({ namespace: this.namespace, name: this.name }) as StatefulSetObject | undefined;
    const rollout = planRollout({
      members,
      podRevisions: new Map(this.pods.map((pod) => [pod.metadata.name!, pod.metadata.labels?.[REVISION_LABEL]])),
      podReady: new Map(this.pods.map((pod) => [pod.metadata.name!, isPodReady(pod)])),
      updateRevision: statefulSet?.status?.updateRevision,
      desiredReplicas: desired.spec.replicas,
      primary: topologySettled ? plan.primary : null,
      topologySettled,
    });
    if (rollout.kind === 'restartPod') {
      await this.event('Normal', 'RestartingPod', rollout.reason, 'Rollout');
      this.guard();
      await this.options.client.delete({ apiVersion: 'v1', kind: 'Pod', namespace: this.namespace, name: rollout.pod }, { signal: this.signal });
      return { step: { reason: 'RollingUpdate', message: rollout.reason }, complete: false };
    }
    if (rollout.kind === 'switchover' && primaryMember) {
      const notBefore = this.options.memory.switchoverNotBefore;
      if (notBefore !== undefined && this.options.monotonicNow() < notBefore) {
        return { step: { reason: 'SwitchoverBackoff', message: `${rollout.reason}; the last switchover aborted, retrying later` }, complete: false };
      }
      await this.switchover(members, primaryMember, rollout.to, rollout.reason, password);
      return { step: { reason: 'Switchover', message: rollout.reason }, complete: false };
    }
    if (rollout.kind === 'wait' && plan.health === 'Healthy') return { step: { reason: 'Waiting', message: rollout.reason }, complete: false };
    return { complete: rollout.kind === 'none' };
  }

  /** A planned switchover, recorded first (I5) and carried out fenced by the executor's switchover step. */
  private async switchover(members: readonly ClusterMember[], primary: ClusterMember, target: string, reason: string, password: string): Promise<void> {
    const epoch = this.cluster.status?.primaryRecord?.epoch ?? 0;
    const switchoverPlan: TopologyPlan = {
      actions: [{ kind: 'switchover', from: primary.name, to: target, reason }],
      record: { primary: target, epoch: epoch + 1 },
      memory: this.options.memory.topology,
      health: 'Converging',
      reason,
      primary: target,
      readyReplicas: 0,
      requeueAfterMilliseconds: 1000,
    };
    await this.event('Normal', 'SwitchoverStarted', `${reason}: ${primary.name} → ${target}`, 'Switchover');
    await this.writeRecord(switchoverPlan.record!);
    const execution = await this.execute(switchoverPlan.actions, members, password);
    if (execution.switchoverAborted !== undefined) {
      await this.switchoverAborted(switchoverPlan, execution.switchoverAborted);
      return;
    }
    this.options.memory.switchoverBackoffMilliseconds = undefined;
    this.options.memory.switchoverNotBefore = undefined;
    await this.event('Normal', 'SwitchoverCompleted', `${target} is primary; ${primary.name} replicates from it`, 'Switchover');
  }

  private async writeStatus(desired: DesiredState, input: Omit<StatusInput, 'clusterName' | 'generation' | 'desiredReplicas' | 'version' | 'previous' | 'existingPods' | 'now' | 'primaryRecord'>): Promise<void> {
    const status = computeStatus({
      ...input,
      clusterName: this.name,
      generation: this.cluster.metadata.generation,
      desiredReplicas: desired.spec.replicas,
      version: desired.spec.version,
      previous: this.cluster.status,
      primaryRecord: this.cluster.status?.primaryRecord,
      existingPods: this.pods.filter((pod) => !pod.metadata.deletionTimestamp).length,
      blockingProblem: input.blockingProblem ?? podProblem(this.pods),
      now: new Date(this.options.now()).toISOString(),
    });
    if (statusUnchanged(this.cluster.status, status)) return;
    // What changed, so a status that keeps being rewritten can be traced from the log alone.
    this.logger.info({ before: summarizeStatus(this.cluster.status), after: summarizeStatus(status) }, 'status changed');
    this.guard();
    // A merge patch keeps fields it does not mention: a field that went away (the serving primary during an
    // outage) must be sent as null, or the status never matches and is rewritten on every pass.
    const removed = Object.keys(this.cluster.status ?? {}).filter((field) => (status as Record<string, unknown>)[field] === undefined);
    const overwritten = this.cluster.metadata.resourceVersion;
    this.cluster = await this.options.client.patchStatus<RedisClusterObject>(
      { ...REDIS_CLUSTER_GVK, namespace: this.namespace, name: this.name },
      { ...status, ...Object.fromEntries(removed.map((field) => [field, null])) } as unknown as Record<string, unknown>,
      { resourceVersion: overwritten, signal: this.signal },
    );
    rememberOverwritten(this.options.memory, overwritten);
  }

  /**
   * How soon to look again. Fast only where time matters: while the primary is suspect (the detection timer runs)
   * and while steps are being carried out. A cluster waiting for pods is woken by pod events, so its periodic check
   * can be slow: a thousand clusters waiting must not keep four workers busy.
   */
  private nextCheckMilliseconds(plan: TopologyPlan, inProgress: boolean): number {
    if (plan.health === 'PrimarySuspect') return plan.requeueAfterMilliseconds;
    if (plan.actions.some((action) => action.kind !== 'emitEvent') || inProgress) return 1000;
    if (plan.health === 'Healthy') return HEALTHY_RECHECK_MILLISECONDS;
    return plan.primary === null || plan.reason.includes('not failing over') ? 1000 : 5000;
  }

  private podsOf(): PodObject[] {
    const labels = selectorLabels(this.name);
    return this.options.caches.pods.store
      .list()
      .filter((pod) => pod.metadata.namespace === this.namespace && Object.entries(labels).every(([k, v]) => pod.metadata.labels?.[k] === v));
  }

  private event(type: 'Normal' | 'Warning', reason: string, note: string, action = 'Reconcile'): Promise<unknown> {
    return this.options.recorder.event(this.cluster, { type, reason, action, note });
  }
}

/** How many replaced versions are remembered: enough to span a watch stall's worth of status writes. */
const REMEMBERED_OVERWRITTEN_VERSIONS = 32;

/** Every version a status write of ours replaced is older than that write: a cache still showing one is stale. */
function rememberOverwritten(memory: ClusterMemory, resourceVersion: string | undefined): void {
  if (resourceVersion === undefined) return;
  memory.overwrittenResourceVersions = [...(memory.overwrittenResourceVersions ?? []), resourceVersion].slice(-REMEMBERED_OVERWRITTEN_VERSIONS);
}

/** A container that cannot start (bad image, missing Secret) is a problem to report, not to retry blindly. */
function podProblem(pods: readonly PodObject[]): Progress | undefined {
  for (const pod of pods) {
    for (const container of pod.status?.containerStatuses ?? []) {
      const waiting = container.state?.waiting;
      if (waiting?.reason && !['ContainerCreating', 'PodInitializing'].includes(waiting.reason)) {
        return { reason: 'PodCannotStart', message: `pod ${pod.metadata.name} container ${container.name}: ${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''}` };
      }
    }
  }
  return undefined;
}

/** A one-line view of a status for logs: phase, counts, primary and each condition's status and reason. */
function summarizeStatus(status: RedisClusterObject['status']): string {
  if (!status) return 'none';
  const conditions = (status.conditions ?? []).map((condition) => `${condition.type}=${condition.status}/${condition.reason}: ${condition.message}`);
  return `${status.phase} ${status.ready} primary=${status.primary ?? '-'} epoch=${status.primaryRecord?.epoch ?? '-'} gen=${status.observedGeneration} [${conditions.join('; ')}]`;
}
