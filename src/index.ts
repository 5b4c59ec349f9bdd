/**
 * redkite: Redis on Kubernetes as infrastructure-as-code.
 * The RedisCluster API, the constructs that synthesize the release and each cluster's workload, and the
 * typed RedisCluster construct (generated into imports/ from our own CRD).
 */
export * from './api';
export * from './naming';
export * from './app/redkite-app';
export * from './app/linear-synth';
export * from './crd/redis-cluster-crd';
export * from './operator-bundle/operator-bundle';
export * from './operator-bundle/operator-permissions';
export * from './workload/redis-cluster-workload';
export * from './workload/synthesize-workload';
export * from './workload/redis-conf';
export * from './workload/owner-reference';
export * from './release/argocd';
export * from './release/release-charts';
export * from './release/sample-charts';
export * from './release/kustomization';
export * from './release/argocd-application';
export * from './release/argocd-health-check';
export * from './helm/operator-helm-chart';
export type { RedisClusterProps } from '../imports/redis.redkite.io';
// RedisCluster itself comes from ./api: the generated class plus synth-time admission.
export {
  RedisClusterSpecPersistence,
  RedisClusterSpecSchedulingPodAntiAffinity,
  RedisClusterSpecStorageReclaimPolicy,
} from '../imports/redis.redkite.io';
