import { DEFAULT_OPERATOR_NAMESPACE } from '../operator-bundle/operator-bundle';
import { REDIS_CLUSTER_HEALTH_CONFIG_KEY, REDIS_CLUSTER_HEALTH_LUA } from './argocd-health-check';

/** Where the example Application takes the release from. */
export interface ArgoCdApplicationProps {
  /** Git repository holding dist/ (this repository, or a fork). */
  readonly repoURL: string;
  /** Tag, branch or commit. */
  readonly targetRevision: string;
  /**
   * Folder of the release inside the repository.
   * @default 'dist'
   */
  readonly path?: string;
}

/**
 * An Argo CD Application that installs the release from dist/ (Argo CD builds it with kustomize, since
 * dist/kustomization.yaml is there), syncing by waves (CRD, RBAC, operator) and pruning what the release drops.
 */
export function argoCdApplication(props: ArgoCdApplicationProps): Record<string, unknown> {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: { name: 'redkite', namespace: 'argocd' },
    spec: {
      project: 'default',
      source: { repoURL: props.repoURL, targetRevision: props.targetRevision, path: props.path ?? 'dist' },
      destination: { server: 'https://kubernetes.default.svc', namespace: DEFAULT_OPERATOR_NAMESPACE },
      syncPolicy: { automated: { prune: true, selfHeal: true } },
    },
  };
}

/**
 * The health check as an `argocd-cm` patch: merge it into Argo CD's ConfigMap
 * (`kubectl -n argocd patch configmap argocd-cm --patch-file dist/argocd/argocd-cm-redkite-health.yaml`).
 */
export function argoCdHealthCheckConfigMap(): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'argocd-cm', namespace: 'argocd', labels: { 'app.kubernetes.io/part-of': 'argocd' } },
    data: { [REDIS_CLUSTER_HEALTH_CONFIG_KEY]: REDIS_CLUSTER_HEALTH_LUA },
  };
}
