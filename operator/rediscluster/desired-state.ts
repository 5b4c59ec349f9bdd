import { REDIS_CLUSTER_API_VERSION, REDIS_CLUSTER_KIND, resolveSpec, ResolvedRedisClusterSpec } from '../../src/api';
import { KubernetesManifest, synthesizeRedisClusterWorkload } from '../../src/workload/synthesize-workload';
import { RedisClusterObject } from './cluster-object';

export interface DesiredState {
  readonly spec: ResolvedRedisClusterSpec;
  /** Objects to apply, from the same construct `npm run synth` uses. */
  readonly manifests: KubernetesManifest[];
  readonly liveConfigParameters: Readonly<Record<string, string>>;
  readonly passwordSecretName: string;
  /** Whether the controller must generate the password Secret (the spec names none). */
  readonly generatesPasswordSecret: boolean;
}

/**
 * The objects one RedisCluster needs, computed in memory by the workload construct. Pure.
 * `statefulSetReplicas` overrides the pod count while a scale-down waits for a switchover.
 */
export function desiredState(cluster: RedisClusterObject, statefulSetReplicas?: number): DesiredState {
  const spec = resolveSpec(cluster.spec ?? {});
  const name = cluster.metadata.name!;
  const synthesized = synthesizeRedisClusterWorkload({
    name,
    namespace: cluster.metadata.namespace!,
    spec: statefulSetReplicas === undefined ? spec : { ...spec, replicas: statefulSetReplicas },
    owner: { apiVersion: REDIS_CLUSTER_API_VERSION, kind: REDIS_CLUSTER_KIND, name, uid: cluster.metadata.uid! },
  });
  return {
    spec,
    manifests: synthesized.manifests,
    liveConfigParameters: synthesized.liveConfigParameters,
    passwordSecretName: synthesized.passwordSecretName,
    generatesPasswordSecret: spec.auth.passwordSecretName === undefined,
  };
}
