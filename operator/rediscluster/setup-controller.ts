import type { Manager, KubernetesObject } from '../runtime';
import { MANAGED_BY } from '../../src/naming';
import { RedisAdmin } from '../redis';
import { REDIS_CLUSTER_GVK, type PodObject, type RedisClusterObject } from './cluster-object';
import { PrimaryWatchdog } from './primary-watchdog';
import { RedisClusterReconciler } from './reconciler';

/** Kinds the controller applies; their events enqueue the owning RedisCluster. */
const OWNED_KINDS = [
  { apiVersion: 'apps/v1', kind: 'StatefulSet' },
  { apiVersion: 'v1', kind: 'Service' },
  { apiVersion: 'v1', kind: 'ConfigMap' },
  { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget' },
] as const;

const MANAGED_SELECTOR = `app.kubernetes.io/managed-by=${MANAGED_BY}`;

export interface RedisClusterControllerOptions {
  /** @default 4 (the reference design's MaxConcurrentReconciles) */
  readonly maxConcurrentReconciles?: number;
  /** How often the primaries are probed between reconciles. @default 500 */
  readonly primaryProbeIntervalMs?: number;
  readonly reportingInstance: string;
}

/**
 * Registers the RedisCluster controller with a manager: watches RedisClusters, owns StatefulSets, Services,
 * ConfigMaps and PodDisruptionBudgets, and maps pod events to their cluster. Caches are narrowed by the managed-by
 * label so the controller does not hold every pod of the cluster in memory; Secrets are read by name only.
 */
export function setupRedisClusterController(manager: Manager, options: RedisClusterControllerOptions): { stop: () => Promise<void> } {
  const admin = new RedisAdmin();
  const recorder = manager.eventRecorder({ reportingController: 'redis.redkite.io/operator', reportingInstance: options.reportingInstance });
  const owned = new Map(
    OWNED_KINDS.map((kind) => [`${kind.apiVersion}/${kind.kind}`, manager.getInformer<KubernetesObject>({ ...kind, labelSelector: MANAGED_SELECTOR })] as const),
  );
  const clusters = manager.getInformer<RedisClusterObject>(REDIS_CLUSTER_GVK);
  const pods = manager.getInformer<PodObject>({ apiVersion: 'v1', kind: 'Pod', labelSelector: MANAGED_SELECTOR });
  // Secrets are neither listed nor watched (least privilege): each reconcile reads the cluster's password Secret by
  // name, so a rotated password is noticed at the next reconcile (at most the 30 s health check later).

  let enqueue: (key: { namespace: string; name: string }) => void = () => undefined;
  const logger = manager.logger.child({ component: 'primary-watchdog' });
  const watchdog = new PrimaryWatchdog(admin, (key) => enqueue(key), options.primaryProbeIntervalMs ?? 500, (message, error) => logger.warn({ err: error }, message));
  const reconciler = new RedisClusterReconciler({ client: manager.client, admin, recorder, caches: { clusters, pods, owned }, watchdog, leaseCurrent: () => manager.leaseCurrent() });

  let builder = manager.controller('rediscluster').for(REDIS_CLUSTER_GVK);
  for (const kind of OWNED_KINDS) builder = builder.owns({ ...kind, labelSelector: MANAGED_SELECTOR });
  const controller = builder
    .watches<PodObject>({ apiVersion: 'v1', kind: 'Pod', labelSelector: MANAGED_SELECTOR }, (pod) => {
      const cluster = pod.metadata.labels?.['app.kubernetes.io/instance'];
      return cluster && pod.metadata.namespace ? [{ namespace: pod.metadata.namespace, name: cluster }] : [];
    })
    .withOptions({ maxConcurrentReconciles: options.maxConcurrentReconciles ?? 4 })
    .complete(reconciler.reconcile);
  enqueue = (key) => controller.enqueue(key);
  watchdog.start();
  return {
    stop: async () => {
      watchdog.stop();
      await admin.close();
    },
  };
}
