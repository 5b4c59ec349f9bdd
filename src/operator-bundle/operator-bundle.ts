import { ApiObjectMetadata } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { restrictedContainerSecurityContext, restrictedPodSecurityContext } from '../workload/security';
import { LEADER_ELECTION_RULES, PermissionRule, WATCHED_NAMESPACE_RULES } from './operator-permissions';

export const DEFAULT_OPERATOR_IMAGE = 'ghcr.io/redkite/redkite:0.1.0';
export const DEFAULT_OPERATOR_NAMESPACE = 'redkite-system';
export const OPERATOR_NAME = 'redkite-operator';
export const METRICS_PORT = 8080;
export const HEALTH_PORT = 8081;
/** The non-root user the operator image runs as. */
const OPERATOR_USER_ID = 65532;

export interface OperatorBundleProps {
  /**
   * Namespace the operator runs in.
   * @default 'redkite-system'
   */
  readonly namespace?: string;
  /**
   * Operator image.
   * @default 'ghcr.io/redkite/redkite:0.1.0'
   */
  readonly image?: string;
  /**
   * Operator pods; one leads, the others stand by.
   * @default 2
   */
  readonly replicas?: number;
  /**
   * Watch RedisClusters in this namespace only, with a Role instead of a ClusterRole.
   * @default - all namespaces, with a ClusterRole
   */
  readonly watchNamespace?: string;
  /**
   * Metadata merged into the RBAC objects (for example an Argo CD sync wave).
   * @default - none
   */
  readonly rbacMetadata?: Omit<ApiObjectMetadata, 'name' | 'namespace'>;
  /**
   * Metadata merged into the workload objects (ServiceAccount, Deployment, Service, PodDisruptionBudget).
   * @default - none
   */
  readonly workloadMetadata?: Omit<ApiObjectMetadata, 'name' | 'namespace'>;
}

const LABELS = {
  'app.kubernetes.io/name': 'redkite',
  'app.kubernetes.io/component': 'operator',
  'app.kubernetes.io/part-of': 'redkite',
};
const SELECTOR = { 'app.kubernetes.io/name': 'redkite', 'app.kubernetes.io/component': 'operator' };

function toPolicyRules(rules: readonly PermissionRule[]): k8s.PolicyRule[] {
  return rules.map((rule) => ({ apiGroups: [...rule.apiGroups], resources: [...rule.resources], verbs: [...rule.verbs] }));
}

/**
 * The operator release: ServiceAccount, least-privilege RBAC (no wildcards), a leader-elected Deployment with a
 * restricted security context, a metrics Service and a PodDisruptionBudget.
 */
export class OperatorBundle extends Construct {
  public readonly namespace: string;
  public readonly serviceAccountName = OPERATOR_NAME;

  constructor(scope: Construct, id: string, props: OperatorBundleProps = {}) {
    super(scope, id);
    const namespace = props.namespace ?? DEFAULT_OPERATOR_NAMESPACE;
    this.namespace = namespace;
    const replicas = props.replicas ?? 2;
    const rbacMeta = (name: string, objectNamespace?: string): ApiObjectMetadata => ({
      ...props.rbacMetadata,
      name,
      namespace: objectNamespace,
      labels: { ...LABELS, ...props.rbacMetadata?.labels },
    });
    const workloadMeta = (name: string): ApiObjectMetadata => ({
      ...props.workloadMetadata,
      name,
      namespace,
      labels: { ...LABELS, ...props.workloadMetadata?.labels },
    });
    const subjects: k8s.Subject[] = [{ kind: 'ServiceAccount', name: OPERATOR_NAME, namespace }];

    new k8s.KubeServiceAccount(this, 'service-account', {
      metadata: rbacMeta(OPERATOR_NAME, namespace),
      automountServiceAccountToken: true,
    });

    if (props.watchNamespace) {
      new k8s.KubeRole(this, 'role', {
        metadata: rbacMeta(OPERATOR_NAME, props.watchNamespace),
        rules: toPolicyRules(WATCHED_NAMESPACE_RULES),
      });
      new k8s.KubeRoleBinding(this, 'role-binding', {
        metadata: rbacMeta(OPERATOR_NAME, props.watchNamespace),
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: OPERATOR_NAME },
        subjects,
      });
    } else {
      new k8s.KubeClusterRole(this, 'cluster-role', {
        metadata: rbacMeta(OPERATOR_NAME),
        rules: toPolicyRules(WATCHED_NAMESPACE_RULES),
      });
      new k8s.KubeClusterRoleBinding(this, 'cluster-role-binding', {
        metadata: rbacMeta(OPERATOR_NAME),
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: OPERATOR_NAME },
        subjects,
      });
    }
    new k8s.KubeRole(this, 'leader-election-role', {
      metadata: rbacMeta(`${OPERATOR_NAME}-leader-election`, namespace),
      rules: toPolicyRules(LEADER_ELECTION_RULES),
    });
    new k8s.KubeRoleBinding(this, 'leader-election-role-binding', {
      metadata: rbacMeta(`${OPERATOR_NAME}-leader-election`, namespace),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `${OPERATOR_NAME}-leader-election` },
      subjects,
    });

    const args = [
      'run',
      '--leader-elect',
      `--metrics-bind-address=:${METRICS_PORT}`,
      `--health-probe-bind-address=:${HEALTH_PORT}`,
      '--max-concurrent-reconciles=4',
      ...(props.watchNamespace ? [`--namespace=${props.watchNamespace}`] : []),
    ];
    new k8s.KubeDeployment(this, 'deployment', {
      metadata: workloadMeta(OPERATOR_NAME),
      spec: {
        replicas,
        selector: { matchLabels: SELECTOR },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: k8s.IntOrString.fromNumber(0), maxSurge: k8s.IntOrString.fromNumber(1) } },
        template: {
          metadata: { labels: { ...LABELS } },
          spec: {
            serviceAccountName: OPERATOR_NAME,
            // The controller talks to the apiserver with this pod's token.
            automountServiceAccountToken: true,
            securityContext: restrictedPodSecurityContext(OPERATOR_USER_ID),
            terminationGracePeriodSeconds: 30,
            affinity: {
              podAntiAffinity: {
                preferredDuringSchedulingIgnoredDuringExecution: [
                  { weight: 100, podAffinityTerm: { labelSelector: { matchLabels: SELECTOR }, topologyKey: 'kubernetes.io/hostname' } },
                ],
              },
            },
            containers: [
              {
                name: 'operator',
                image: props.image ?? DEFAULT_OPERATOR_IMAGE,
                imagePullPolicy: 'IfNotPresent',
                args,
                env: [
                  { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
                  { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
                ],
                ports: [
                  { name: 'metrics', containerPort: METRICS_PORT, protocol: 'TCP' },
                  { name: 'health', containerPort: HEALTH_PORT, protocol: 'TCP' },
                ],
                livenessProbe: { httpGet: { path: '/healthz', port: k8s.IntOrString.fromString('health') }, periodSeconds: 10, failureThreshold: 3 },
                readinessProbe: { httpGet: { path: '/readyz', port: k8s.IntOrString.fromString('health') }, periodSeconds: 5, failureThreshold: 2 },
                resources: {
                  requests: { cpu: k8s.Quantity.fromString('100m'), memory: k8s.Quantity.fromString('128Mi') },
                  limits: { memory: k8s.Quantity.fromString('512Mi') },
                },
                securityContext: restrictedContainerSecurityContext(),
              },
            ],
          },
        },
      },
    });

    new k8s.KubeService(this, 'metrics-service', {
      metadata: workloadMeta(`${OPERATOR_NAME}-metrics`),
      spec: {
        selector: SELECTOR,
        ports: [{ name: 'metrics', port: METRICS_PORT, targetPort: k8s.IntOrString.fromString('metrics'), protocol: 'TCP' }],
      },
    });

    new k8s.KubePodDisruptionBudget(this, 'pdb', {
      metadata: workloadMeta(OPERATOR_NAME),
      spec: { minAvailable: k8s.IntOrString.fromNumber(1), selector: { matchLabels: SELECTOR } },
    });
  }
}
