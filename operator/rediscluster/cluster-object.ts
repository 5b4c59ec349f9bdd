import type { KubernetesObject } from '../runtime';
import type { RedisClusterSpec, RedisClusterStatus } from '../../src/api';
import { REDIS_CLUSTER_API_VERSION, REDIS_CLUSTER_KIND } from '../../src/api';

/** A RedisCluster as read from the cache. */
export interface RedisClusterObject extends KubernetesObject {
  readonly spec?: RedisClusterSpec;
  readonly status?: RedisClusterStatus;
}

export const REDIS_CLUSTER_GVK = { apiVersion: REDIS_CLUSTER_API_VERSION, kind: REDIS_CLUSTER_KIND } as const;

/** A pod as far as the controller reads it. */
export interface PodObject extends KubernetesObject {
  readonly spec?: { readonly nodeName?: string };
  readonly status?: {
    readonly phase?: string;
    readonly podIP?: string;
    readonly conditions?: ReadonlyArray<{ readonly type: string; readonly status: string }>;
    readonly containerStatuses?: ReadonlyArray<{
      readonly name: string;
      readonly ready?: boolean;
      readonly restartCount?: number;
      readonly state?: { readonly waiting?: { readonly reason?: string; readonly message?: string } };
    }>;
  };
}

export interface StatefulSetObject extends KubernetesObject {
  readonly spec?: { readonly replicas?: number };
  readonly status?: { readonly updateRevision?: string; readonly currentRevision?: string; readonly observedGeneration?: number };
}

export interface SecretObject extends KubernetesObject {
  readonly data?: Record<string, string>;
}

/** The pod's StatefulSet ordinal, from its name (`<cluster>-<ordinal>`). */
export function ordinalOf(clusterName: string, podName: string): number | undefined {
  const suffix = podName.slice(clusterName.length + 1);
  return podName.startsWith(`${clusterName}-`) && /^\d+$/.test(suffix) ? Number(suffix) : undefined;
}

export function isPodReady(pod: PodObject): boolean {
  return pod.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True') ?? false;
}

/** The address the controller reaches a pod's Redis at, or null when it has none (not running yet, or gone). */
export function podAddress(pod: PodObject | undefined): string | null {
  if (!pod || pod.metadata.deletionTimestamp || pod.status?.phase !== 'Running') return null;
  return pod.status.podIP ?? null;
}
