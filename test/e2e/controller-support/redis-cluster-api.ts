import Redis from 'ioredis';
import type { KubeConfig } from '@kubernetes/client-node';
import { k8s, waitFor } from '../support';

const crd = { group: 'redis.redkite.io', version: 'v1alpha1', plural: 'redisclusters' };

export interface ClusterStatus {
  phase?: string;
  primary?: string;
  replicas?: number;
  readyReplicas?: number;
  observedGeneration?: number;
  currentVersion?: string;
  conditions?: Array<{ type: string; status: string; reason: string; message: string }>;
}

export function isReady(status: ClusterStatus): boolean {
  return status.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True') ?? false;
}

export function condition(status: ClusterStatus, type: string) {
  return status.conditions?.find((candidate) => candidate.type === type);
}

/** A client that fails fast while disconnected (no offline queue) and reconnects every 100 ms. */
export async function redisClient(host: string, password: string): Promise<Redis> {
  const redis = new Redis({ host, port: 6379, password, lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, connectTimeout: 1000, commandTimeout: 1000, retryStrategy: () => 100 });
  await redis.connect();
  return redis;
}

/** RedisClusters and their pods in one test namespace, read and written as a user would. */
export class RedisClusterApi {
  private readonly core;
  private readonly customObjects;

  constructor(
    config: KubeConfig,
    private readonly namespace: () => string,
    private readonly operatorLog: () => string = () => '',
  ) {
    this.core = config.makeApiClient(k8s.CoreV1Api);
    this.customObjects = config.makeApiClient(k8s.CustomObjectsApi);
  }

  create(name: string, spec: Record<string, unknown>): Promise<unknown> {
    return this.customObjects.createNamespacedCustomObject({
      ...crd,
      namespace: this.namespace(),
      body: { apiVersion: 'redis.redkite.io/v1alpha1', kind: 'RedisCluster', metadata: { name }, spec },
    });
  }

  /** A JSON merge patch of the spec; returns the new generation. */
  async patchSpec(name: string, spec: Record<string, unknown>): Promise<number> {
    const patched = (await this.customObjects.patchNamespacedCustomObject(
      { ...crd, namespace: this.namespace(), name, body: { spec } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    )) as { metadata: { generation: number } };
    return patched.metadata.generation;
  }

  delete(name: string): Promise<unknown> {
    return this.customObjects.deleteNamespacedCustomObject({ ...crd, namespace: this.namespace(), name });
  }

  async exists(name: string): Promise<boolean> {
    try {
      await this.customObjects.getNamespacedCustomObject({ ...crd, namespace: this.namespace(), name });
      return true;
    } catch {
      return false;
    }
  }

  async status(name: string): Promise<ClusterStatus> {
    const object = (await this.customObjects.getNamespacedCustomObject({ ...crd, namespace: this.namespace(), name })) as { status?: ClusterStatus };
    return object.status ?? {};
  }

  /** Waits for the Ready condition, optionally for a given generation; the operator's log tail explains a timeout. */
  waitReady(name: string, description: string, options: { generation?: number; timeoutMs?: number } = {}): Promise<ClusterStatus> {
    return waitFor(
      async () => {
        const status = await this.status(name);
        const observed = options.generation === undefined || (status.observedGeneration ?? 0) >= options.generation;
        return isReady(status) && observed ? status : undefined;
      },
      { description: `${description} (operator log:\n${this.operatorLog()})`, timeoutMs: options.timeoutMs ?? 120_000, intervalMs: 200 },
    );
  }

  async password(name: string): Promise<string> {
    const secret = await this.core.readNamespacedSecret({ namespace: this.namespace(), name: `${name}-auth` });
    return Buffer.from(secret.data!.password, 'base64').toString('utf8');
  }

  /** Replaces the password in the cluster's generated Secret (what a user rotating it does). */
  async setPassword(name: string, password: string): Promise<void> {
    await this.core.patchNamespacedSecret(
      { namespace: this.namespace(), name: `${name}-auth`, body: { data: { password: Buffer.from(password).toString('base64') } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
  }

  async serviceAddress(service: string): Promise<string> {
    return (await this.core.readNamespacedService({ namespace: this.namespace(), name: service })).spec!.clusterIP!;
  }

  async podIp(pod: string): Promise<string> {
    return (await this.core.readNamespacedPod({ namespace: this.namespace(), name: pod })).status!.podIP!;
  }

  async pods(cluster: string) {
    return (await this.core.listNamespacedPod({ namespace: this.namespace(), labelSelector: `app.kubernetes.io/instance=${cluster}` })).items;
  }

  async podsLabelledPrimary(cluster: string): Promise<string[]> {
    const pods = await this.core.listNamespacedPod({ namespace: this.namespace(), labelSelector: `app.kubernetes.io/instance=${cluster},redis.redkite.io/role=primary` });
    return pods.items.map((pod) => pod.metadata!.name!);
  }

  /** Connects to the pod's Redis with the cluster's password. */
  async connectToPod(cluster: string, pod: string): Promise<Redis> {
    return redisClient(await this.podIp(pod), await this.password(cluster));
  }
}
