import { ApiObjectMetadata } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { restrictedContainerSecurityContext, restrictedPodSecurityContext } from '../workload/security';
import { DEFAULT_OPERATOR_IMAGE, validateImageReference } from './operator-image';
import { LEADER_ELECTION_RULES, PermissionRule, WATCHED_NAMESPACE_RULES } from './operator-permissions';

export { DEFAULT_OPERATOR_IMAGE, OPERATOR_IMAGE_REPOSITORY } from './operator-image';
export const DEFAULT_OPERATOR_NAMESPACE = 'redkite-system';
export const OPERATOR_NAME = 'redkite-operator';
export const METRICS_PORT = 8080;
export const HEALTH_PORT = 8081;
/** The non-root user the operator image runs as (the Dockerfile's USER). */
export const OPERATOR_USER_ID = 65532;
export const DEFAULT_OPERATOR_REPLICAS = 2;
/** Requests sized for a few hundred RedisClusters; the memory limit leaves room for the informer caches. */
export const DEFAULT_OPERATOR_RESOURCES = {
  requests: { cpu: '100m', memory: '128Mi' },
  limits: { memory: '512Mi' },
} as const;

export interface OperatorBundleProps {
  /**
   * Namespace the operator runs in.
   * @default 'redkite-system'
   */
  readonly namespace?: string;
  /**
   * Operator image.
   * @default - `ghcr.io/redkite/redkite:<package version>` ({@link DEFAULT_OPERATOR_IMAGE})
   */
  readonly image?: string;
  /**
   * Operator pods; one leads, the others stand by. More than one needs leader election.
   * @default 2
   */
  readonly replicas?: number;
  /**
   * Elect a leader through a Lease, so that only one pod reconciles; without it the bundle grants no Lease
   * permissions and `replicas` must be at most 1.
   * @default true
   */
  readonly leaderElection?: boolean;
  /**
   * CPU and memory requests and limits of the operator container.
   * @default - requests 100m CPU and 128Mi memory, a 512Mi memory limit ({@link DEFAULT_OPERATOR_RESOURCES})
   */
  readonly resources?: OperatorResources;
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

/** Requests and limits as Kubernetes quantities (`'100m'`, `'128Mi'`). */
export interface OperatorResources {
  readonly requests?: Readonly<Record<string, string>>;
  readonly limits?: Readonly<Record<string, string>>;
}

function toQuantities(quantities: Readonly<Record<string, string>> | undefined): Record<string, k8s.Quantity> | undefined {
  if (!quantities) return undefined;
  return Object.fromEntries(Object.entries(quantities).map(([resource, quantity]) => [resource, k8s.Quantity.fromString(quantity)]));
}

function resolveReplicas(props: OperatorBundleProps, leaderElection: boolean): number {
  const replicas = props.replicas ?? DEFAULT_OPERATOR_REPLICAS;
  if (!Number.isInteger(replicas) || replicas < 0) throw new Error(`OperatorBundle: replicas must be a non-negative integer, got ${replicas}`);
  // Two controllers without a Lease would both act on the same Redis pods.
  if (replicas > 1 && !leaderElection) throw new Error(`OperatorBundle: ${replicas} replicas need leader election (leaderElection: true)`);
  return replicas;
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
    const leaderElection = props.leaderElection ?? true;
    const replicas = resolveReplicas(props, leaderElection);
    const image = validateImageReference(props.image ?? DEFAULT_OPERATOR_IMAGE, 'OperatorBundle image');
    const resources = props.resources ?? DEFAULT_OPERATOR_RESOURCES;
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
    if (leaderElection) {
      new k8s.KubeRole(this, 'leader-election-role', {
        metadata: rbacMeta(`${OPERATOR_NAME}-leader-election`, namespace),
        rules: toPolicyRules(LEADER_ELECTION_RULES),
      });
      new k8s.KubeRoleBinding(this, 'leader-election-role-binding', {
        metadata: rbacMeta(`${OPERATOR_NAME}-leader-election`, namespace),
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `${OPERATOR_NAME}-leader-election` },
        subjects,
      });
    }

    const args = [
      'run',
      ...(leaderElection ? ['--leader-elect'] : []),
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
                image,
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
                resources: { requests: toQuantities(resources.requests), limits: toQuantities(resources.limits) },
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
