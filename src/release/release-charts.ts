import { App, Chart } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { RedisClusterCrd } from '../crd/redis-cluster-crd';
import { DEFAULT_OPERATOR_NAMESPACE, OperatorBundle, OperatorBundleProps } from '../operator-bundle/operator-bundle';
import { SERVER_SIDE_APPLY, SyncWave, syncWave } from './argocd';

/** Chart ids, which are also the file names under dist/. */
export const CRD_CHART_ID = 'redkite-crd';
export const OPERATOR_CHART_ID = 'redkite-operator';

/** What a caller may choose about the operator release; the Argo CD metadata is the release's own. */
export type ReleaseOperatorProps = Omit<OperatorBundleProps, 'rbacMetadata' | 'workloadMetadata'>;

/** The CRD as the release ships it: first sync wave, server-side applied (its schema is too large for client-side apply). */
export function addReleaseCrd(chart: Chart): RedisClusterCrd {
  return new RedisClusterCrd(chart, 'redis-cluster', {
    metadata: { annotations: { ...syncWave(SyncWave.CRD), ...SERVER_SIDE_APPLY } },
  });
}

/** The operator bundle as the release ships it (dist/ and the Helm chart): RBAC in wave -1, the workload in wave 0. */
export function addReleaseOperator(chart: Chart, operator: ReleaseOperatorProps = {}): OperatorBundle {
  return new OperatorBundle(chart, 'operator', {
    ...operator,
    namespace: operator.namespace ?? DEFAULT_OPERATOR_NAMESPACE,
    rbacMetadata: { annotations: syncWave(SyncWave.RBAC) },
    workloadMetadata: { annotations: syncWave(SyncWave.OPERATOR) },
  });
}

/** Adds the release bundle (CRD, namespace, RBAC, operator) to an App, annotated for Argo CD. */
export function addReleaseCharts(app: App, operator: ReleaseOperatorProps = {}): void {
  addReleaseCrd(new Chart(app, CRD_CHART_ID));

  const operatorChart = new Chart(app, OPERATOR_CHART_ID);
  const namespace = operator.namespace ?? DEFAULT_OPERATOR_NAMESPACE;
  new k8s.KubeNamespace(operatorChart, 'namespace', {
    metadata: {
      name: namespace,
      annotations: syncWave(SyncWave.RBAC),
      // The operator's pods meet the restricted Pod Security Standard; enforce it.
      labels: {
        'app.kubernetes.io/part-of': 'redkite',
        'pod-security.kubernetes.io/enforce': 'restricted',
        'pod-security.kubernetes.io/enforce-version': 'latest',
      },
    },
  });
  addReleaseOperator(operatorChart, { ...operator, namespace });
}
