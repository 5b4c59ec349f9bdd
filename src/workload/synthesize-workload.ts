import { App, Chart } from 'cdk8s';
import { RedisClusterWorkload, RedisClusterWorkloadProps } from './redis-cluster-workload';

/** A Kubernetes object as plain JSON. */
export interface KubernetesManifest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly [key: string]: unknown };
  readonly [key: string]: unknown;
}

export interface SynthesizedWorkload {
  readonly manifests: KubernetesManifest[];
  readonly liveConfigParameters: Readonly<Record<string, string>>;
  readonly passwordSecretName: string;
}

/**
 * Synthesizes one cluster's objects in memory. A fresh, tiny App per call: cdk8s resolves and validates the whole
 * App for every chart, so a shared App would make the controller's cost grow with the number of clusters.
 */
export function synthesizeRedisClusterWorkload(props: RedisClusterWorkloadProps): SynthesizedWorkload {
  const app = new App({ outdir: '/dev/null' });
  const chart = new Chart(app, 'workload', { namespace: props.namespace });
  const workload = new RedisClusterWorkload(chart, 'cluster', props);
  return {
    manifests: chart.toJson() as KubernetesManifest[],
    liveConfigParameters: workload.liveConfigParameters,
    passwordSecretName: workload.passwordSecretName,
  };
}
