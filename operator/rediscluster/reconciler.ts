import {
  addFinalizer,
  isConflict,
  isNotFound,
  objectKeyToString,
  removeFinalizer,
  type EventRecorder,
  type Informer,
  type KubernetesObject,
  type ObjectKey,
  type ObjectReader,
  type ObjectWriter,
  type ReconcileContext,
  type ReconcileResult,
  type StatusWriter,
} from '../runtime';
import { resolveSpec } from '../../src/api';
import { FINALIZER, selectorLabels } from '../../src/naming';
import { RedisOperationAbortedError, type RedisAdministration } from '../redis';
import type { TopologyMemory } from '../topology';
import { REDIS_CLUSTER_GVK, type PodObject, type RedisClusterObject } from './cluster-object';
import { ClusterPass } from './cluster-pass';
import { LiveConfigTracker } from './live-config';
import type { PrimaryWatchdog } from './primary-watchdog';
import { LeadershipLostError } from './leadership';
import type { PasswordMemory } from './password-rotation';

/** The read side of an informer: what the reconciler looks at (a fake in the unit suite). */
export interface CacheReader<T extends KubernetesObject> {
  readonly store: Pick<Informer<T>['store'], 'get' | 'list'>;
}

/** Caches the reconciler reads; every write goes through the client. */
export interface ClusterCaches {
  readonly clusters: CacheReader<RedisClusterObject>;
  readonly pods: CacheReader<PodObject>;
  /** Owned kinds by `apiVersion/kind`, to skip applies that would change nothing. */
  readonly owned: ReadonlyMap<string, CacheReader<KubernetesObject>>;
}

/** The client surface the reconciler uses (controller-runtime's split reader / writer / status writer). */
export type ReconcilerClient = ObjectReader & ObjectWriter & StatusWriter;

export interface RedisClusterReconcilerOptions {
  readonly client: ReconcilerClient;
  readonly admin: RedisAdministration;
  readonly recorder: Pick<EventRecorder, 'event'>;
  readonly caches: ClusterCaches;
  readonly watchdog: Pick<PrimaryWatchdog, 'watch' | 'forget'>;
  /** Wall clock, for timestamps in status. @default Date.now */
  readonly now?: () => number;
  /** Monotonic clock, for the failure-detection timer and back-offs (I7). @default performance.now */
  readonly monotonicNow?: () => number;
  /** Synchronous lease check of the manager (I6). @default - the reconcile signal alone */
  readonly leaseCurrent?: () => boolean;
}

/** What the reconciler keeps per cluster between passes; losing it only restarts timers. */
export interface ClusterMemory {
  topology: TopologyMemory;
  /** The last primary epoch this controller wrote: a cache showing an older one is stale (I5). */
  writtenEpoch?: number;
  /** resourceVersions this controller's recent status writes replaced: a cache still showing one is stale. */
  overwrittenResourceVersions?: string[];
  /** The last write was refused with 409: read the object from the apiserver on the next pass. */
  readFreshNext?: boolean;
  /** A switchover that aborted is not retried before this monotonic time. */
  switchoverNotBefore?: number;
  switchoverBackoffMilliseconds?: number;
  /** The passwords the pods accept, for two-phase rotation. */
  password: PasswordMemory;
}

/**
 * Reconciles one RedisCluster. The outer reconcile fetches the freshest object, handles deletion and the
 * finalizer; the inner one is {@link ClusterPass}: ensure the password → apply children → observe → decide
 * (pure) → record the decision → act (fenced) → rollout → status. Every decision is derived from what it observes
 * and from the durable record in status, so a new leader picks up wherever the last one stopped.
 */
export class RedisClusterReconciler {
  private readonly memory = new Map<string, ClusterMemory>();
  private readonly liveConfig = new LiveConfigTracker();
  private readonly now: () => number;
  private readonly monotonicNow: () => number;

  constructor(private readonly options: RedisClusterReconcilerOptions) {
    this.now = options.now ?? Date.now;
    this.monotonicNow = options.monotonicNow ?? (() => performance.now());
  }

  reconcile = async (key: ObjectKey, context: ReconcileContext): Promise<ReconcileResult | void> => {
    const cached = this.options.caches.clusters.store.get(key);
    if (!cached) {
      this.forget(key);
      return;
    }
    try {
      const cluster = await this.freshest(cached, key, context.signal);
      if (cluster === undefined) {
        this.forget(key);
        return;
      }
      if (cluster.metadata.deletionTimestamp) return await this.finalize(cluster, key, context);
      let live = cluster;
      if (!cluster.metadata.finalizers?.includes(FINALIZER)) {
        live = await addFinalizer(this.options.client, cluster, FINALIZER, { signal: context.signal });
      }
      const memory = this.memoryOf(key);
      const pass = new ClusterPass({
        ...this.options,
        cluster: live,
        key,
        context,
        memory,
        liveConfig: this.liveConfig,
        now: this.now,
        monotonicNow: this.monotonicNow,
      });
      return await pass.run();
    } catch (error) {
      // Someone else (or a stale cache) moved the object on: re-read and decide again, soon but not in a spin.
      if (isConflict(error)) {
        this.memoryOf(key).readFreshNext = true;
        return { requeueAfterMs: 200 };
      }
      // Lost the lease mid-pass (here, or inside a switchover): stop quietly; the new leader carries on.
      if (error instanceof LeadershipLostError || error instanceof RedisOperationAbortedError) return;
      throw error;
    }
  };

  /**
   * The cache, unless it is older than this controller's own last write (a lagging or stalled watch): it shows an
   * epoch older than one we recorded, or a version one of our status writes replaced, or our last write got 409.
   * Then the apiserver's copy.
   * Deciding from a record older than one we wrote would fail over twice (I5); writing from it would only get 409s.
   */
  private async freshest(cached: RedisClusterObject, key: ObjectKey, signal: AbortSignal): Promise<RedisClusterObject | undefined> {
    const memory = this.memory.get(objectKeyToString(key));
    const cachedEpoch = cached.status?.primaryRecord?.epoch ?? 0;
    const olderEpoch = memory?.writtenEpoch !== undefined && cachedEpoch < memory.writtenEpoch;
    const overwritten = cached.metadata.resourceVersion !== undefined && (memory?.overwrittenResourceVersions ?? []).includes(cached.metadata.resourceVersion);
    if (!olderEpoch && !overwritten && !memory?.readFreshNext) return cached;
    if (memory) memory.readFreshNext = false;
    try {
      return await this.options.client.get<RedisClusterObject>({ ...REDIS_CLUSTER_GVK, namespace: key.namespace, name: key.name }, { signal });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  private memoryOf(key: ObjectKey): ClusterMemory {
    const id = objectKeyToString(key);
    let memory = this.memory.get(id);
    if (memory === undefined) {
      memory = { topology: {}, password: {} };
      this.memory.set(id, memory);
    }
    return memory;
  }

  private async finalize(cluster: RedisClusterObject, key: ObjectKey, context: ReconcileContext): Promise<ReconcileResult | void> {
    this.forget(key);
    if (!cluster.metadata.finalizers?.includes(FINALIZER)) return;
    const reclaimPolicy = resolveSpec(cluster.spec ?? {}).storage.reclaimPolicy;
    if (reclaimPolicy === 'Delete') {
      const labelSelector = Object.entries(selectorLabels(cluster.metadata.name!)).map(([k, v]) => `${k}=${v}`).join(',');
      const claims = await this.options.client.list('v1', 'PersistentVolumeClaim', { namespace: cluster.metadata.namespace, labelSelector });
      for (const claim of claims.items) {
        try {
          await this.options.client.delete({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: cluster.metadata.namespace, name: claim.metadata.name! }, { signal: context.signal });
        } catch (error) {
          if (!isNotFound(error)) throw error;
        }
      }
      context.logger.info({ claims: claims.items.length }, 'deleted PersistentVolumeClaims (reclaimPolicy Delete)');
    }
    try {
      await removeFinalizer(this.options.client, cluster, FINALIZER);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  private forget(key: ObjectKey): void {
    this.memory.delete(objectKeyToString(key));
    this.liveConfig.forgetCluster(key);
    this.options.watchdog.forget(key);
  }
}
