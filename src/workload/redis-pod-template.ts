import { k8s } from 'cdk8s-plus-28';
import { ResolvedRedisClusterSpec } from '../api/redis-cluster-spec';
import { EXPORTER_PORT, REDIS_PORT, RESTART_CONFIG_HASH_ANNOTATION, commonLabels, selectorLabels } from '../naming';
import { CONFIG_DIR, CONFIG_FILE_NAME, DATA_DIR } from './redis-conf';
import { REDIS_USER_ID, restrictedContainerSecurityContext, restrictedPodSecurityContext } from './security';

/** Name of the volume claim template mounted at /data. */
export const DATA_VOLUME = 'data';
const CONFIG_VOLUME = 'config';

/** Default resources when the spec gives none: enough for a small cache, with a memory limit to protect the node. */
const DEFAULT_RESOURCES = {
  requests: { cpu: '100m', memory: '256Mi' },
  limits: { memory: '256Mi' },
};

function quantities(list: Record<string, string | undefined> | undefined): Record<string, k8s.Quantity> | undefined {
  if (!list) return undefined;
  const entries = Object.entries(list).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return entries.length === 0 ? undefined : Object.fromEntries(entries.map(([key, value]) => [key, k8s.Quantity.fromString(value)]));
}

/** The image a cluster runs: the override, or the official image for the version. */
export function redisImage(spec: ResolvedRedisClusterSpec): string {
  return spec.image ?? `redis:${spec.version}`;
}

/**
 * A PING through redis-cli against the pod's own IP. Exec rather than tcpSocket because the kernel completes TCP
 * handshakes for a frozen process; only an answered PING proves Redis is serving. LOADING counts as alive for
 * liveness, so a large dataset being loaded is not killed half way.
 */
function pingCommand(acceptLoading: boolean): string[] {
  const accepted = acceptLoading ? 'PONG|LOADING' : 'PONG';
  return ['sh', '-c', `redis-cli -h "$POD_IP" -p ${REDIS_PORT} ping 2>&1 | grep -Eq '${accepted}'`];
}

export interface RedisPodTemplateProps {
  readonly clusterName: string;
  readonly spec: ResolvedRedisClusterSpec;
  readonly configMapName: string;
  readonly passwordSecretName: string;
  readonly restartConfigHash: string;
}

/** The pod template of a cluster's StatefulSet. Pure. */
export function redisPodTemplate(props: RedisPodTemplateProps): k8s.PodTemplateSpec {
  const { clusterName, spec } = props;
  const passwordEnv: k8s.EnvVar = {
    name: 'REDIS_PASSWORD',
    valueFrom: { secretKeyRef: { name: props.passwordSecretName, key: spec.auth.passwordSecretKey } },
  };
  const redis: k8s.Container = {
    name: 'redis',
    image: redisImage(spec),
    imagePullPolicy: 'IfNotPresent',
    command: ['redis-server'],
    args: [`${CONFIG_DIR}/${CONFIG_FILE_NAME}`, '--requirepass', '$(REDIS_PASSWORD)', '--masterauth', '$(REDIS_PASSWORD)'],
    env: [
      { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
      passwordEnv,
      // redis-cli reads the password from here, keeping it off the probe's command line.
      { name: 'REDISCLI_AUTH', valueFrom: passwordEnv.valueFrom },
    ],
    ports: [{ name: 'redis', containerPort: REDIS_PORT, protocol: 'TCP' }],
    readinessProbe: { exec: { command: pingCommand(false) }, periodSeconds: 2, timeoutSeconds: 1, failureThreshold: 2 },
    livenessProbe: {
      exec: { command: pingCommand(true) },
      initialDelaySeconds: 10,
      periodSeconds: 10,
      timeoutSeconds: 5,
      failureThreshold: 6,
    },
    resources: {
      requests: quantities(spec.resources?.requests ?? DEFAULT_RESOURCES.requests),
      limits: quantities(spec.resources?.limits ?? DEFAULT_RESOURCES.limits),
    },
    securityContext: restrictedContainerSecurityContext(),
    volumeMounts: [
      { name: DATA_VOLUME, mountPath: DATA_DIR },
      { name: CONFIG_VOLUME, mountPath: CONFIG_DIR, readOnly: true },
    ],
  };
  const containers = [redis];
  if (spec.exporter.enabled) {
    containers.push({
      name: 'exporter',
      image: spec.exporter.image,
      imagePullPolicy: 'IfNotPresent',
      env: [{ name: 'REDIS_ADDR', value: `redis://127.0.0.1:${REDIS_PORT}` }, passwordEnv],
      ports: [{ name: 'metrics', containerPort: EXPORTER_PORT, protocol: 'TCP' }],
      resources: {
        requests: { cpu: k8s.Quantity.fromString('10m'), memory: k8s.Quantity.fromString('32Mi') },
        limits: { memory: k8s.Quantity.fromString('64Mi') },
      },
      securityContext: restrictedContainerSecurityContext(),
    });
  }
  return {
    metadata: {
      // No role label: a new pod boots fenced, and the controller labels it primary or replica once it has
      // placed it in the topology, so neither Service routes clients to a pod in an unknown state.
      labels: commonLabels(clusterName, spec.version),
      annotations: { [RESTART_CONFIG_HASH_ANNOTATION]: props.restartConfigHash },
    },
    spec: {
      containers,
      securityContext: restrictedPodSecurityContext(REDIS_USER_ID),
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      terminationGracePeriodSeconds: 30,
      affinity: antiAffinity(clusterName, spec.scheduling.podAntiAffinity),
      nodeSelector: spec.scheduling.nodeSelector,
      tolerations: spec.scheduling.tolerations?.map((toleration) => ({ ...toleration })),
      priorityClassName: spec.scheduling.priorityClassName,
      volumes: [{ name: CONFIG_VOLUME, configMap: { name: props.configMapName } }],
    },
  };
}

function antiAffinity(clusterName: string, mode: ResolvedRedisClusterSpec['scheduling']['podAntiAffinity']): k8s.Affinity | undefined {
  const term: k8s.PodAffinityTerm = {
    labelSelector: { matchLabels: selectorLabels(clusterName) },
    topologyKey: 'kubernetes.io/hostname',
  };
  switch (mode) {
    case 'None':
      return undefined;
    case 'Required':
      return { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term] } };
    case 'Preferred':
      return { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: term }] } };
  }
}
