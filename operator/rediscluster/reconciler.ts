import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import {
  addFinalizer,
  isNotFound,
  objectKeyToString,
  removeFinalizer,
  type EventRecorder,
  type Informer,
  type KubernetesClient,
  type KubernetesObject,
  type ObjectKey,
  type ReconcileContext,
  type ReconcileResult,
} from '../runtime';
import { resolveSpec } from '../../src/api';
import { FINALIZER, REDIS_PORT, ROLE_LABEL, selectorLabels } from '../../src/naming';
import type { RedisAdmin } from '../redis';
import { planTopology, type ClusterMember, type TopologyMemory, type TopologyPlan } from '../topology';
import { REDIS_CLUSTER_GVK, isPodReady, ordinalOf, type PodObject, type RedisClusterObject, type SecretObject, type StatefulSetObject } from './cluster-object';
import { computeStatus, statusUnchanged } from './cluster-status';
import { desiredState } from './desired-state';
import { observeMembers } from './observe-members';
import { ensurePassword, PasswordUnavailableError } from './password-secret';
import type { PrimaryWatchdog } from './primary-watchdog';
import { planRollout } from './rollout-plan';
import { isSubsetOf } from './subset-equal';
import { executeTopologyActions, labelPod, replicaLabelChanges } from './topology-executor';

/** Caches the reconciler reads; every write goes through the client. */
export interface ClusterCaches {
  readonly clusters: Informer<RedisClusterObject>;
  readonly pods: Informer<PodObject>;
  readonly secrets: Informer<SecretObject>;
  /** Owned kinds by `apiVersion/kind`, to skip applies that would change nothing. */
  readonly owned: ReadonlyMap<string, Informer<KubernetesObject>>;
}

export interface RedisClusterReconcilerOptions {
  readonly client: KubernetesClient;
  readonly admin: RedisAdmin;
  readonly recorder: EventRecorder;
  readonly caches: ClusterCaches;
  readonly watchdog: PrimaryWatchdog;
  /** Periodic health check of a healthy cluster. @default 30000 */
  readonly healthyRequeueMs?: number;
  readonly now?: () => number;
}

const REVISION_LABEL = 'controller-revision-hash';

/**
 * Reconciles one RedisCluster: desired objects from the workload construct (applied only when they differ from the
 * cache), the password Secret, the replication topology from observed offsets, planned rollouts, status.
 * Every decision is derived from what it observes, so a new leader picks up wherever the last one stopped.
 */
export class RedisClusterReconciler {
  private readonly memory = new Map<string, TopologyMemory>();
  /** Pod name → `runId|configHash` last applied with CONFIG SET, so unchanged pods get no CONFIG SET. */
  private readonly appliedConfig = new Map<string, string>();
  private readonly now: () => number;

  constructor(private readonly options: RedisClusterReconcilerOptions) {
    this.now = options.now ?? Date.now;
  }

  reconcile = async (key: ObjectKey, context: ReconcileContext): Promise<ReconcileResult | void> => {
    const cluster = this.options.caches.clusters.store.get(key);
    if (!cluster) {
      this.forget(key);
      return;
    }
    if (cluster.metadata.deletionTimestamp) return this.finalize(cluster, key, context.logger);
    if (!cluster.metadata.finalizers?.includes(FINALIZER)) {
      await addFinalizer(this.options.client, cluster, FINALIZER, { signal: context.signal });
    }
    return this.reconcileLive(cluster, key, context);
  };

  private async reconcileLive(cluster: RedisClusterObject, key: ObjectKey, context: ReconcileContext): Promise<ReconcileResult> {
    const { client, admin, recorder, caches } = this.options;
    const name = cluster.metadata.name!;
    const namespace = cluster.metadata.namespace!;
    const pods = this.podsOf(cluster);
    const labelledPrimary = pods.find((pod) => pod.metadata.labels?.[ROLE_LABEL] === 'primary');
    const desiredReplicas = resolveSpec(cluster.spec ?? {}).replicas;
    // Scale-down must not delete the primary's pod before a switchover: keep it in the StatefulSet until then.
    const primaryOrdinal = labelledPrimary ? ordinalOf(name, labelledPrimary.metadata.name!) : undefined;
    const keepPods = primaryOrdinal !== undefined && primaryOrdinal >= desiredReplicas ? primaryOrdinal + 1 : undefined;
    const desired = desiredState(cluster, keepPods);

    let password: string;
    try {
      const cachedSecret = caches.secrets.store.get({ namespace, name: desired.passwordSecretName });
      password = await ensurePassword(client, cluster, desired, cachedSecret);
    } catch (error) {
      if (!(error instanceof PasswordUnavailableError)) throw error;
      await recorder.event(cluster, { type: 'Warning', reason: 'PasswordUnavailable', action: 'Reconcile', note: error.message });
      await this.writeStatus(cluster, context.logger, {
        plan: undefined, pods, primaryServing: false, desiredReplicas: desired.spec.replicas, version: desired.spec.version,
        blockingProblem: { reason: 'PasswordUnavailable', message: error.message }, rolloutComplete: false,
      });
      return { requeueAfterMs: 30_000 };
    }

    // The children are independent objects: apply the ones that differ from the cache together.
    await Promise.all(
      desired.manifests.map(async (manifest) => {
        const live = caches.owned.get(`${manifest.apiVersion}/${manifest.kind}`)?.store.get({ namespace, name: manifest.metadata.name });
        if (live && isSubsetOf(manifest, live)) return;
        context.logger.info({ kind: manifest.kind, name: manifest.metadata.name }, live ? 'object drifted from desired state; applying' : 'creating object');
        await client.apply(manifest as unknown as KubernetesObject, { signal: context.signal });
      }),
    );

    const members = await observeMembers(admin, name, pods, password);
    const memoryKey = objectKeyToString(key);
    const plan = planTopology({
      members,
      desiredReplicas: desired.spec.replicas,
      automaticFailover: desired.spec.automaticFailover,
      failureDetectionMilliseconds: desired.spec.failureDetectionMilliseconds,
      minReplicasToWrite: desired.spec.minReplicasToWrite,
      redisPort: REDIS_PORT,
      nowMilliseconds: this.now(),
      memory: this.memory.get(memoryKey) ?? {},
    });
    this.memory.set(memoryKey, plan.memory);
    if (plan.actions.length > 0) context.logger.info({ actions: plan.actions, reason: plan.reason }, 'topology actions');
    const { promoted } = await executeTopologyActions(plan.actions, { client, admin, recorder, cluster, members, password });

    const currentLabels = new Map(pods.map((pod) => [pod.metadata.name!, pod.metadata.labels?.[ROLE_LABEL]]));
    for (const change of replicaLabelChanges(members, plan.primary, currentLabels)) {
      await labelPod(client, namespace, change.pod, change.role);
    }
    await this.applyLiveConfig(members, desired.liveConfigParameters, password);

    const primaryMember = members.find((member) => member.name === plan.primary);
    const primaryServing = this.isServingPrimary(primaryMember) && plan.actions.length === 0;
    const statefulSet = caches.owned.get('apps/v1/StatefulSet')?.store.get({ namespace, name }) as StatefulSetObject | undefined;
    const rollout = planRollout({
      members,
      podRevisions: new Map(pods.map((pod) => [pod.metadata.name!, pod.metadata.labels?.[REVISION_LABEL]])),
      podReady: new Map(pods.map((pod) => [pod.metadata.name!, isPodReady(pod)])),
      updateRevision: statefulSet?.status?.updateRevision,
      desiredReplicas: desired.spec.replicas,
      primary: primaryServing ? plan.primary : null,
      topologySettled: plan.actions.length === 0 && plan.health === 'Healthy',
    });
    let progress: { reason: string; message: string } | undefined;
    if (rollout.kind === 'restartPod') {
      progress = { reason: 'RollingUpdate', message: rollout.reason };
      await recorder.event(cluster, { type: 'Normal', reason: 'RestartingPod', action: 'Rollout', note: rollout.reason });
      await client.delete({ apiVersion: 'v1', kind: 'Pod', namespace, name: rollout.pod });
    } else if (rollout.kind === 'switchover' && primaryMember) {
      progress = { reason: 'Switchover', message: rollout.reason };
      await this.switchover(cluster, members, primaryMember, rollout.to, rollout.reason, password, context.logger);
    } else if (rollout.kind === 'wait' && plan.health === 'Healthy') {
      // With a healthy, settled topology, planRollout only waits while a rollout or scale-down is pending.
      progress = { reason: 'Waiting', message: rollout.reason };
    }
    const existingPods = pods.filter((pod) => !pod.metadata.deletionTimestamp && (ordinalOf(name, pod.metadata.name!) ?? Infinity) < desired.spec.replicas);
    if (!progress && existingPods.length !== desired.spec.replicas) {
      progress = { reason: 'Scaling', message: `${existingPods.length} of ${desired.spec.replicas} pods exist` };
    }

    await this.writeStatus(cluster, context.logger, {
      plan, pods, primaryServing, desiredReplicas: desired.spec.replicas, version: desired.spec.version, progress,
      rolloutComplete: rollout.kind === 'none' && existingPods.length === desired.spec.replicas,
      failedOverAt: promoted ? new Date(this.now()).toISOString() : undefined,
    });

    this.options.watchdog.watch(key, primaryMember?.address ? { host: primaryMember.address, port: REDIS_PORT, password } : undefined);
    return { requeueAfterMs: this.nextCheckMs(plan, progress !== undefined) };
  }

  /**
   * How soon to look again. Fast only where time matters: while the primary is suspect (the detection timer runs)
   * and while steps are being carried out. A cluster waiting for pods is woken by pod events, so its periodic
   * check can be slow: a thousand clusters waiting must not keep four workers busy.
   */
  private nextCheckMs(plan: TopologyPlan, inProgress: boolean): number {
    if (plan.health === 'PrimarySuspect') return plan.requeueAfterMilliseconds;
    if (plan.actions.length > 0 || inProgress) return 1000;
    if (plan.health === 'Healthy') return this.options.healthyRequeueMs ?? 30_000;
    return 5000;
  }

  private isServingPrimary(member: ClusterMember | undefined): boolean {
    return member?.labelledPrimary === true && member.observation?.reachable === true && member.observation.role === 'primary';
  }

  private podsOf(cluster: RedisClusterObject): PodObject[] {
    const labels = selectorLabels(cluster.metadata.name!);
    return this.options.caches.pods.store
      .list()
      .filter((pod) => pod.metadata.namespace === cluster.metadata.namespace && Object.entries(labels).every(([k, v]) => pod.metadata.labels?.[k] === v));
  }

  /** CONFIG SET the live parameters on pods that restarted or whose parameters changed, nowhere else. */
  private async applyLiveConfig(members: readonly ClusterMember[], parameters: Readonly<Record<string, string>>, password: string): Promise<void> {
    const configHash = createHash('sha256').update(JSON.stringify(parameters)).digest('hex');
    await Promise.all(
      members.map(async (member) => {
        if (!member.address || !member.observation?.reachable) return;
        const stamp = `${member.observation.runId}|${configHash}`;
        if (this.appliedConfig.get(member.name) === stamp) return;
        await this.options.admin.configSet({ host: member.address, port: REDIS_PORT, password }, parameters);
        this.appliedConfig.set(member.name, stamp);
      }),
    );
  }

  private async switchover(
    cluster: RedisClusterObject,
    members: readonly ClusterMember[],
    primary: ClusterMember,
    targetName: string,
    reason: string,
    password: string,
    logger: Logger,
  ): Promise<void> {
    const { admin, client, recorder } = this.options;
    const namespace = cluster.metadata.namespace!;
    const target = members.find((member) => member.name === targetName)!;
    const endpoint = (member: ClusterMember) => ({ host: member.address!, port: REDIS_PORT, password });
    await recorder.event(cluster, { type: 'Normal', reason: 'SwitchoverStarted', action: 'Switchover', note: `${reason}: ${primary.name} → ${target.name}` });
    const result = await admin.switchover({
      primary: endpoint(primary),
      target: endpoint(target),
      otherReplicas: members.filter((member) => member.name !== primary.name && member.name !== target.name && member.address).map(endpoint),
    });
    logger.info({ result }, 'switchover finished');
    if (result.outcome !== 'completed') {
      await recorder.event(cluster, { type: 'Warning', reason: 'SwitchoverAborted', action: 'Switchover', note: `switchover to ${target.name} aborted; ${primary.name} stays primary` });
      return;
    }
    // Unlabel before label: the Service never selects two primaries.
    await labelPod(client, namespace, primary.name, null);
    await labelPod(client, namespace, target.name, 'primary');
    await recorder.event(cluster, { type: 'Normal', reason: 'SwitchoverCompleted', action: 'Switchover', note: `${target.name} is primary; ${primary.name} replicates from it` });
  }

  private async writeStatus(
    cluster: RedisClusterObject,
    logger: Logger,
    input: {
      plan: TopologyPlan | undefined;
      pods: PodObject[];
      primaryServing: boolean;
      desiredReplicas: number;
      version: string;
      blockingProblem?: { reason: string; message: string };
      progress?: { reason: string; message: string };
      rolloutComplete: boolean;
      failedOverAt?: string;
    },
  ): Promise<void> {
    const status = computeStatus({
      clusterName: cluster.metadata.name!,
      generation: cluster.metadata.generation,
      desiredReplicas: input.desiredReplicas,
      version: input.version,
      previous: cluster.status,
      existingPods: input.pods.filter((pod) => !pod.metadata.deletionTimestamp).length,
      primaryServing: input.primaryServing,
      plan: input.plan,
      blockingProblem: input.blockingProblem ?? this.podProblem(input.pods),
      progress: input.progress,
      rolloutComplete: input.rolloutComplete,
      failedOverAt: input.failedOverAt,
      now: new Date(this.now()).toISOString(),
    });
    if (statusUnchanged(cluster.status, status)) return;
    // What changed, so a status that keeps being rewritten can be traced from the log alone.
    logger.info({ before: summarizeStatus(cluster.status), after: summarizeStatus(status) }, 'status changed');
    await this.options.client.patchStatus(
      { ...REDIS_CLUSTER_GVK, namespace: cluster.metadata.namespace, name: cluster.metadata.name! },
      status as unknown as Record<string, unknown>,
    );
  }

  /** A container that cannot start (bad image, missing Secret) is a problem to report, not to retry blindly. */
  private podProblem(pods: readonly PodObject[]): { reason: string; message: string } | undefined {
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

  private async finalize(cluster: RedisClusterObject, key: ObjectKey, logger: Logger): Promise<ReconcileResult | void> {
    this.forget(key);
    if (!cluster.metadata.finalizers?.includes(FINALIZER)) return;
    const reclaimPolicy = resolveSpec(cluster.spec ?? {}).storage.reclaimPolicy;
    if (reclaimPolicy === 'Delete') {
      const labelSelector = Object.entries(selectorLabels(cluster.metadata.name!)).map(([k, v]) => `${k}=${v}`).join(',');
      const claims = await this.options.client.list('v1', 'PersistentVolumeClaim', { namespace: cluster.metadata.namespace, labelSelector });
      for (const claim of claims.items) {
        try {
          await this.options.client.delete({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: cluster.metadata.namespace, name: claim.metadata.name! });
        } catch (error) {
          if (!isNotFound(error)) throw error;
        }
      }
      logger.info({ claims: claims.items.length }, 'deleted PersistentVolumeClaims (reclaimPolicy Delete)');
    }
    try {
      await removeFinalizer(this.options.client, cluster, FINALIZER);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  private forget(key: ObjectKey): void {
    this.memory.delete(objectKeyToString(key));
    this.options.watchdog.forget(key);
  }
}

/** A one-line view of a status for logs: phase, counts, primary and each condition's status and reason. */
function summarizeStatus(status: RedisClusterObject['status']): string {
  if (!status) return 'none';
  const conditions = (status.conditions ?? []).map((condition) => `${condition.type}=${condition.status}/${condition.reason}: ${condition.message}`);
  return `${status.phase} ${status.ready} primary=${status.primary ?? '-'} gen=${status.observedGeneration} [${conditions.join('; ')}]`;
}
