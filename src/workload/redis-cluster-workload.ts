import { ApiObjectMetadata } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { RedisClusterSpec } from '../api/redis-cluster-spec';
import { resolveSpec } from '../api/resolve-spec';
import { validationOncePerSynth } from '../api/synth-validation';
import { redisClusterManifest, redisClusterValidationMessages } from '../api/validate-redis-cluster';
import { REDIS_PORT, ROLE_LABEL, ROLE_PRIMARY, ROLE_REPLICA, clusterObjectNames, commonLabels, selectorLabels } from '../naming';
import { ClusterOwnerReference, controllerOwnerReference } from './owner-reference';
import { CONFIG_FILE_NAME, renderRedisConf } from './redis-conf';
import { DATA_VOLUME, redisPodTemplate } from './redis-pod-template';

export interface RedisClusterWorkloadProps {
  /** Name of the RedisCluster; every derived name starts with it. */
  readonly name: string;
  /** Namespace of the RedisCluster and of everything derived from it. */
  readonly namespace: string;
  /**
   * The RedisCluster spec; defaults are applied here exactly as the apiserver applies them.
   * @default {} (every default)
   */
  readonly spec?: RedisClusterSpec;
  /**
   * The RedisCluster that owns the objects, so Kubernetes garbage-collects them with it.
   * @default - no owner references (GitOps use without the controller)
   */
  readonly owner?: ClusterOwnerReference;
}

/**
 * Everything one RedisCluster needs: redis.conf ConfigMap, StatefulSet (with claim templates), headless Service,
 * primary Service (selects the pod labelled primary), read-only replicas Service and PodDisruptionBudget.
 *
 * Pure and deterministic: the same props give byte-identical objects. The controller calls it at run time
 * through {@link synthesizeRedisClusterWorkload}, and GitOps users can place it in their own charts.
 */
export class RedisClusterWorkload extends Construct {
  /** Names of the objects this construct creates. */
  public readonly names: ReturnType<typeof clusterObjectNames>;
  /** redis.conf parameters the controller applies live with CONFIG SET. */
  public readonly liveConfigParameters: Readonly<Record<string, string>>;
  /** Name of the Secret holding the password (the user's, or the one the controller generates). */
  public readonly passwordSecretName: string;

  constructor(scope: Construct, id: string, props: RedisClusterWorkloadProps) {
    super(scope, id);
    // The same admission as the RedisCluster itself: a spec the apiserver would refuse fails synth here too.
    this.node.addValidation(validationOncePerSynth(() => redisClusterValidationMessages(redisClusterManifest(props.name, props.namespace, props.spec))));
    const spec = resolveSpec(props.spec);
    const names = clusterObjectNames(props.name);
    this.names = names;
    this.passwordSecretName = spec.auth.passwordSecretName ?? names.generatedPasswordSecret;
    const redisConf = renderRedisConf(spec);
    this.liveConfigParameters = redisConf.liveParameters;

    const metadata = (name: string): ApiObjectMetadata => ({
      name,
      namespace: props.namespace,
      labels: commonLabels(props.name, spec.version),
      ownerReferences: props.owner ? [controllerOwnerReference(props.owner)] : undefined,
    });
    const redisPort: k8s.ServicePort = { name: 'redis', port: REDIS_PORT, targetPort: k8s.IntOrString.fromString('redis'), protocol: 'TCP' };

    new k8s.KubeConfigMap(this, 'config', {
      metadata: metadata(names.configMap),
      data: { [CONFIG_FILE_NAME]: redisConf.text },
    });

    new k8s.KubeService(this, 'headless', {
      metadata: metadata(names.headlessService),
      spec: {
        clusterIp: 'None',
        // Peers and the controller must reach pods that are starting or fenced, not only Ready ones.
        publishNotReadyAddresses: true,
        selector: selectorLabels(props.name),
        ports: [redisPort],
      },
    });

    new k8s.KubeService(this, 'primary', {
      metadata: metadata(names.primaryService),
      spec: { type: 'ClusterIP', selector: { ...selectorLabels(props.name), [ROLE_LABEL]: ROLE_PRIMARY }, ports: [redisPort] },
    });

    new k8s.KubeService(this, 'replicas', {
      metadata: metadata(names.replicasService),
      spec: { type: 'ClusterIP', selector: { ...selectorLabels(props.name), [ROLE_LABEL]: ROLE_REPLICA }, ports: [redisPort] },
    });

    new k8s.KubeStatefulSet(this, 'statefulset', {
      metadata: metadata(names.statefulSet),
      spec: {
        serviceName: names.headlessService,
        replicas: spec.replicas,
        selector: { matchLabels: selectorLabels(props.name) },
        // All pods start together; the controller, not pod ordering, decides the topology.
        podManagementPolicy: 'Parallel',
        // The controller rolls pods itself (replicas first, then a switchover, then the old primary).
        updateStrategy: { type: 'OnDelete' },
        persistentVolumeClaimRetentionPolicy: {
          whenDeleted: spec.storage.reclaimPolicy,
          // Scaling down keeps the data, so scaling up again resumes from it.
          whenScaled: 'Retain',
        },
        template: redisPodTemplate({
          clusterName: props.name,
          spec,
          configMapName: names.configMap,
          passwordSecretName: this.passwordSecretName,
          restartConfigHash: redisConf.restartHash,
        }),
        volumeClaimTemplates: [
          {
            metadata: { name: DATA_VOLUME, labels: selectorLabels(props.name) },
            spec: {
              accessModes: ['ReadWriteOnce'],
              storageClassName: spec.storage.storageClassName,
              resources: { requests: { storage: k8s.Quantity.fromString(spec.storage.size) } },
            },
          },
        ],
      },
    });

    new k8s.KubePodDisruptionBudget(this, 'pdb', {
      metadata: metadata(names.podDisruptionBudget),
      spec: {
        // One pod at a time: a drain never takes the primary and its replica down together.
        maxUnavailable: k8s.IntOrString.fromNumber(1),
        selector: { matchLabels: selectorLabels(props.name) },
      },
    });
  }
}
