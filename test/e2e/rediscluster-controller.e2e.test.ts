import Redis from 'ioredis';
import { E2E_TEST_TIMEOUT_MILLISECONDS, chaos, k8s, loadKubeConfig, useTestNamespace, waitFor } from './support';
import { installCrd, installOperatorRelease } from './controller-support/release';
import { OperatorProcess, operatorKubeconfig } from './controller-support/operator-process';
import { AcknowledgedWriter, verifyAcknowledgedKeys } from '../support/acknowledged-writer';

jest.setTimeout(4 * E2E_TEST_TIMEOUT_MILLISECONDS);

const config = loadKubeConfig();
const namespace = useTestNamespace('rediscluster');
const core = config.makeApiClient(k8s.CoreV1Api);
const customObjects = config.makeApiClient(k8s.CustomObjectsApi);
const crd = { group: 'redis.redkite.io', version: 'v1alpha1', plural: 'redisclusters' };
let operator: OperatorProcess;

interface ClusterStatus {
  phase?: string;
  primary?: string;
  readyReplicas?: number;
  observedGeneration?: number;
  conditions?: Array<{ type: string; status: string; reason: string; message: string }>;
}

async function readStatus(name: string): Promise<ClusterStatus> {
  const object = (await customObjects.getNamespacedCustomObject({ ...crd, namespace: namespace.name, name })) as { status?: ClusterStatus };
  return object.status ?? {};
}

function isReady(status: ClusterStatus): boolean {
  return status.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True') ?? false;
}

async function waitReady(name: string, description: string): Promise<ClusterStatus> {
  return waitFor(async () => {
    const status = await readStatus(name);
    return isReady(status) ? status : undefined;
  }, { description: `${description} (operator log:\n${operator.tail()})`, timeoutMs: 120_000, intervalMs: 200 });
}

async function password(name: string): Promise<string> {
  const secret = await core.readNamespacedSecret({ namespace: namespace.name, name: `${name}-auth` });
  return Buffer.from(secret.data!.password, 'base64').toString('utf8');
}

/** A client that fails fast while disconnected (no offline queue) and reconnects every 100 ms. */
async function client(host: string, secret: string): Promise<Redis> {
  const redis = new Redis({ host, port: 6379, password: secret, lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, connectTimeout: 1000, commandTimeout: 1000, retryStrategy: () => 100 });
  await redis.connect();
  return redis;
}

async function primaryServiceAddress(name: string): Promise<string> {
  const service = await core.readNamespacedService({ namespace: namespace.name, name });
  return service.spec!.clusterIP!;
}

async function podsLabelledPrimary(name: string): Promise<string[]> {
  const pods = await core.listNamespacedPod({ namespace: namespace.name, labelSelector: `app.kubernetes.io/instance=${name},redis.redkite.io/role=primary` });
  return pods.items.map((pod) => pod.metadata!.name!);
}

beforeAll(async () => {
  await installCrd(config);
  await installOperatorRelease(config);
  operator = new OperatorProcess(await operatorKubeconfig(config), namespace.name);
  operator.start();
});

afterAll(async () => {
  await operator?.stop();
});

describe('the RedisCluster controller under the release RBAC, with real redis-server pods', () => {
  const name = 'cache';

  it('brings a three-pod cluster to Ready and routes writes through the primary Service to the primary', async () => {
    await customObjects.createNamespacedCustomObject({
      ...crd,
      namespace: namespace.name,
      body: { apiVersion: 'redis.redkite.io/v1alpha1', kind: 'RedisCluster', metadata: { name }, spec: { replicas: 3, minReplicasToWrite: 1 } },
    });
    const status = await waitReady(name, 'cluster cache Ready');
    expect(status.readyReplicas).toBe(3);
    expect(await podsLabelledPrimary(name)).toEqual([status.primary]);

    const secret = await password(name);
    const viaService = await client(await primaryServiceAddress(name), secret);
    try {
      await viaService.set('written-through-the-service', 'yes');
      const role = (await viaService.call('ROLE')) as unknown[];
      expect(role[0]).toBe('master');
    } finally {
      viaService.disconnect();
    }
    const primaryPod = await core.readNamespacedPod({ namespace: namespace.name, name: status.primary! });
    const direct = await client(primaryPod.status!.podIP!, secret);
    try {
      expect(await direct.get('written-through-the-service')).toBe('yes');
    } finally {
      direct.disconnect();
    }
  });

  it('fails over after SIGKILL of the primary without losing an acknowledged write', async () => {
    const before = await waitReady(name, 'cluster cache Ready before the failover');
    const secret = await password(name);
    const writerClient = await client(await primaryServiceAddress(name), secret);
    const writer = AcknowledgedWriter.start({ client: writerClient, keyPrefix: 'sigkill', replicas: 1, waitTimeoutMilliseconds: 500 });
    try {
      await waitFor(() => writer.acknowledged.length >= 50, { description: '50 acknowledged writes before the kill' });
      const killedAt = Date.now();
      await chaos.kill(namespace.name, before.primary!);
      const after = await waitFor(async () => {
        const status = await readStatus(name);
        return status.primary && status.primary !== before.primary && isReady(status) ? status : undefined;
      }, { description: `a new primary other than ${before.primary} (operator log:\n${operator.tail()})`, timeoutMs: 90_000, intervalMs: 200 });
      await waitFor(() => writer.firstAcknowledgedStartedAfter(killedAt), { description: 'an acknowledged write on the new primary', timeoutMs: 30_000 });
      await writer.stop();
      const newPrimary = await core.readNamespacedPod({ namespace: namespace.name, name: after.primary! });
      const reader = await client(newPrimary.status!.podIP!, secret);
      try {
        const lost = await verifyAcknowledgedKeys(reader, writer.acknowledged);
        expect({ acknowledged: writer.acknowledged.length > 50, lost: lost.map((write) => write.key) }).toEqual({ acknowledged: true, lost: [] });
      } finally {
        reader.disconnect();
      }
      expect(await podsLabelledPrimary(name)).toEqual([after.primary]);
    } finally {
      await writer.stop();
      writerClient.disconnect();
    }
  });

  it('fails over from a frozen primary and demotes it when it thaws, never labelling two primaries', async () => {
    const before = await waitReady(name, 'cluster cache Ready before the freeze');
    let sampling = true;
    let maxPrimaries = 0;
    const sampler = (async () => {
      while (sampling) {
        maxPrimaries = Math.max(maxPrimaries, (await podsLabelledPrimary(name)).length);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    try {
      await chaos.freeze(namespace.name, before.primary!);
      const after = await waitFor(async () => {
        const status = await readStatus(name);
        return status.primary && status.primary !== before.primary ? status : undefined;
      }, { description: `failover away from frozen ${before.primary} (operator log:\n${operator.tail()})`, timeoutMs: 60_000, intervalMs: 200 });
      await chaos.thaw(namespace.name, before.primary!);
      const oldPrimaryPod = await core.readNamespacedPod({ namespace: namespace.name, name: before.primary! });
      const secret = await password(name);
      const oldPrimary = await client(oldPrimaryPod.status!.podIP!, secret);
      try {
        await waitFor(async () => ((await oldPrimary.call('ROLE')) as unknown[])[0] === 'slave', {
          description: `${before.primary} demoted to a replica after thawing`,
          timeoutMs: 30_000,
        });
      } finally {
        oldPrimary.disconnect();
      }
      await waitReady(name, 'cluster Ready again after the thaw');
      expect((await readStatus(name)).primary).toBe(after.primary);
    } finally {
      sampling = false;
      await sampler;
      await chaos.thaw(namespace.name, before.primary!).catch(() => undefined);
    }
    expect(maxPrimaries).toBeLessThanOrEqual(1);
  });

  it('deletes its children and finishes its finalizer when the cluster is deleted', async () => {
    await customObjects.deleteNamespacedCustomObject({ ...crd, namespace: namespace.name, name });
    await waitFor(async () => {
      try {
        await customObjects.getNamespacedCustomObject({ ...crd, namespace: namespace.name, name });
        return false;
      } catch {
        return true;
      }
    }, { description: 'RedisCluster gone (finalizer removed)', timeoutMs: 60_000 });
    await waitFor(async () => (await core.listNamespacedPod({ namespace: namespace.name, labelSelector: `app.kubernetes.io/instance=${name}` })).items.length === 0, {
      description: 'pods garbage-collected',
      timeoutMs: 90_000,
    });
  });
});
