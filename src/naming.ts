import { REDIS_CLUSTER_GROUP } from './api/api-group';

/**
 * Names and labels of everything derived from a RedisCluster. They are explicit and stable on purpose:
 * a StatefulSet's selector and claim templates are immutable, so no hash or construct path may leak in.
 */

export const REDIS_PORT = 6379;
export const EXPORTER_PORT = 9121;
export const MANAGED_BY = 'redkite';

/** Label that marks the current primary (`primary`) and the replicas (`replica`); the client Service selects on it. */
export const ROLE_LABEL = `${REDIS_CLUSTER_GROUP}/role`;
export const ROLE_PRIMARY = 'primary';
export const ROLE_REPLICA = 'replica';

/** Finalizer the controller puts on every RedisCluster. */
export const FINALIZER = `${REDIS_CLUSTER_GROUP}/cleanup`;
/**
 * Escape hatch of docs/failover.md (I1): names the pod to promote when no member is provably current. Used for one
 * decision, recorded in an Event, then removed by the controller.
 */
export const FORCE_PRIMARY_ANNOTATION = `${REDIS_CLUSTER_GROUP}/force-primary`;

/** Pod template annotation: hash of the redis.conf parameters that only take effect on restart. */
export const RESTART_CONFIG_HASH_ANNOTATION = `${REDIS_CLUSTER_GROUP}/restart-config-hash`;

/** The labels every object derived from one RedisCluster carries, and the StatefulSet's selector. */
export function selectorLabels(clusterName: string): Record<string, string> {
  return {
    'app.kubernetes.io/name': 'redis',
    'app.kubernetes.io/instance': clusterName,
    'app.kubernetes.io/managed-by': MANAGED_BY,
  };
}

/** Selector labels plus descriptive ones that may change over time (never used in selectors). */
export function commonLabels(clusterName: string, version: string): Record<string, string> {
  return {
    ...selectorLabels(clusterName),
    'app.kubernetes.io/component': 'redis',
    'app.kubernetes.io/part-of': 'redkite',
    'app.kubernetes.io/version': version,
  };
}

/** Label selector string of a cluster's pods, as the scale subresource reports it. */
export function podSelectorString(clusterName: string): string {
  return Object.entries(selectorLabels(clusterName))
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}

export interface ClusterObjectNames {
  readonly statefulSet: string;
  readonly headlessService: string;
  readonly primaryService: string;
  readonly replicasService: string;
  readonly configMap: string;
  readonly podDisruptionBudget: string;
  readonly generatedPasswordSecret: string;
}

/** Names of the objects of one RedisCluster. */
export function clusterObjectNames(clusterName: string): ClusterObjectNames {
  return {
    statefulSet: clusterName,
    headlessService: `${clusterName}-headless`,
    primaryService: clusterName,
    replicasService: `${clusterName}-replicas`,
    configMap: `${clusterName}-config`,
    podDisruptionBudget: clusterName,
    generatedPasswordSecret: `${clusterName}-auth`,
  };
}

/** Name of the pod with the given StatefulSet ordinal. */
export function podName(clusterName: string, ordinal: number): string {
  return `${clusterName}-${ordinal}`;
}
