import type { KubernetesObject } from '@kubernetes/client-node';
import { E2E_TEST_TIMEOUT_MILLISECONDS, applyObjects, k8s, loadKubeConfig, useTestNamespace, waitFor } from './support';
import { installCrd, installOperatorRelease } from './controller-support/release';
import { loadSpecFixtures, redisClusterObject } from '../support/spec-fixtures';

jest.setTimeout(E2E_TEST_TIMEOUT_MILLISECONDS);

const config = loadKubeConfig();
const namespace = useTestNamespace('admission');
const fixtures = loadSpecFixtures();

const customObjects = config.makeApiClient(k8s.CustomObjectsApi);
const crd = { group: 'redis.redkite.io', version: 'v1alpha1', plural: 'redisclusters' };

/** The apiserver's own message (what kubectl prints), from a client-node error. */
function errorText(error: unknown): string {
  const body = (error as { body?: unknown }).body;
  try {
    return (typeof body === 'string' ? JSON.parse(body) : body).message;
  } catch {
    return String(body ?? error);
  }
}

/** Creates with strict field validation (kubectl's default), returning the apiserver's error text or undefined. */
async function createStrict(object: KubernetesObject): Promise<string | undefined> {
  try {
    await customObjects.createNamespacedCustomObject({ ...crd, namespace: namespace.name, body: object, fieldValidation: 'Strict' });
    return undefined;
  } catch (error) {
    return errorText(error);
  }
}

async function replaceStrict(object: KubernetesObject): Promise<string | undefined> {
  try {
    const name = object.metadata!.name!;
    const current = (await customObjects.getNamespacedCustomObject({ ...crd, namespace: namespace.name, name })) as KubernetesObject;
    const body = { ...object, metadata: { ...object.metadata, resourceVersion: current.metadata?.resourceVersion } };
    await customObjects.replaceNamespacedCustomObject({ ...crd, namespace: namespace.name, name, body, fieldValidation: 'Strict' });
    return undefined;
  } catch (error) {
    return errorText(error);
  }
}

describe('the release in dist/ against a real kube-apiserver', () => {
  beforeAll(async () => {
    await installCrd(config);
  });

  it('applies the operator release with server-side apply and the controller-manager creates its pods', async () => {
    const applied = await installOperatorRelease(config);
    expect(applied.map((object) => object.kind).sort()).toEqual(
      ['ClusterRole', 'ClusterRoleBinding', 'Deployment', 'Namespace', 'PodDisruptionBudget', 'Role', 'RoleBinding', 'Service', 'ServiceAccount'],
    );
    const core = config.makeApiClient(k8s.CoreV1Api);
    // The operator image is not runnable here: the node agent must say so clearly, and the pods must exist.
    const pods = await waitFor(
      async () => {
        const list = await core.listNamespacedPod({ namespace: 'redkite-system', labelSelector: 'app.kubernetes.io/component=operator' });
        const waiting = list.items.filter((pod) => pod.status?.containerStatuses?.[0]?.state?.waiting?.message);
        return waiting.length === 2 ? waiting : undefined;
      },
      { description: 'two operator pods with a waiting reason', timeoutMs: 60_000 },
    );
    expect(pods[0].status!.containerStatuses![0].state!.waiting!.message).toMatch(/redis|image/i);
  });

  it.each(fixtures.valid.map((fixture) => [fixture.name, fixture] as const))('accepts valid spec %s', async (_name, fixture) => {
    expect(await createStrict(redisClusterObject(`valid-${fixture.name}`, fixture.spec))).toBeUndefined();
  });

  it.each(fixtures.invalid.map((fixture) => [fixture.name, fixture] as const))(
    'rejects invalid spec %s with a readable message',
    async (_name, fixture) => {
      const error = await createStrict(redisClusterObject(`bad-${fixture.name}`, fixture.spec, fixture.metadataName));
      expect(error).toBeDefined();
      expect(error).toContain(fixture.message);
    },
  );

  it.each(fixtures.validUpdates.map((fixture) => [fixture.name, fixture] as const))('accepts update %s', async (_name, fixture) => {
    const name = `update-${fixture.name}`;
    expect(await createStrict(redisClusterObject(name, fixture.old))).toBeUndefined();
    expect(await replaceStrict(redisClusterObject(name, fixture.new))).toBeUndefined();
  });

  it.each(fixtures.invalidUpdates.map((fixture) => [fixture.name, fixture] as const))(
    'rejects update %s with a message that says why',
    async (_name, fixture) => {
      const name = `update-${fixture.name}`;
      expect(await createStrict(redisClusterObject(name, fixture.old))).toBeUndefined();
      const error = await replaceStrict(redisClusterObject(name, fixture.new));
      expect(error).toContain(fixture.message);
    },
  );

  it('defaults an empty spec exactly as the TypeScript API resolves it', async () => {
    await createStrict(redisClusterObject('defaults-probe', {}));
    const stored = (await customObjects.getNamespacedCustomObject({ ...crd, namespace: namespace.name, name: 'defaults-probe' })) as { spec: unknown };
    const { resolveSpec } = await import('../../src/api');
    // minReplicasToWrite is the one default that depends on another field (replicas), so the TypeScript API resolves
    // it after the schema's defaults and the apiserver stores it absent.
    const { minReplicasToWrite, ...schemaDefaults } = resolveSpec({});
    expect(stored.spec).toEqual(schemaDefaults);
    expect(minReplicasToWrite).toBe(1);
  });

  it('admits the operator pods and a cluster workload in a namespace that enforces the restricted Pod Security Standard', async () => {
    const { synthesizeRedisClusterWorkload } = await import('../../src/workload/synthesize-workload');
    const restricted = `restricted-${namespace.name}`.slice(0, 60);
    const core = config.makeApiClient(k8s.CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: restricted, labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } } } });
    try {
      await core.createNamespacedServiceAccount({ namespace: restricted, body: { metadata: { name: 'redkite-operator' } } });
      const workload = synthesizeRedisClusterWorkload({ name: 'psa', namespace: restricted, spec: { replicas: 1 } }).manifests;
      const statefulSet = workload.find((object) => object.kind === 'StatefulSet') as unknown as { spec: { template: { spec: { volumes: unknown[] } } } };
      // A bare pod has no claim templates: stand in for the data claim with an emptyDir.
      const redisPodSpec = { ...statefulSet.spec.template.spec, volumes: [...statefulSet.spec.template.spec.volumes, { name: 'data', emptyDir: {} }] };
      const operatorDeployment = (await import('./controller-support/release')).distObjects('redkite-operator.k8s.yaml').find((object) => object.kind === 'Deployment') as unknown as { spec: { template: { spec: unknown } } };
      for (const [name, podSpec] of [['redis-pod', redisPodSpec], ['operator-pod', operatorDeployment.spec.template.spec]] as const) {
        // A dry-run create goes through admission (PodSecurity) without starting anything.
        await core.createNamespacedPod({ namespace: restricted, dryRun: 'All', body: { metadata: { name }, spec: podSpec as never } });
      }
      await expect(
        core.createNamespacedPod({ namespace: restricted, dryRun: 'All', body: { metadata: { name: 'privileged' }, spec: { containers: [{ name: 'c', image: 'redis:7.2', securityContext: { privileged: true } }] } } }),
      ).rejects.toThrow(/violates PodSecurity \\+"restricted/);
    } finally {
      await core.deleteNamespace({ name: restricted });
    }
  });

  it('applies a workload construct for three pods that become Ready and keep data across a pod deletion', async () => {
    const { synthesizeRedisClusterWorkload } = await import('../../src/workload/synthesize-workload');
    const core = config.makeApiClient(k8s.CoreV1Api);
    await core.createNamespacedSecret({ namespace: namespace.name, body: { metadata: { name: 'plain-auth' }, stringData: { password: 's3cret' } } });
    // No controller links replicas here, so the pod written to must not require one (minReplicasToWrite 0).
    const manifests = synthesizeRedisClusterWorkload({ name: 'plain', namespace: namespace.name, spec: { replicas: 3, persistence: 'AOF', minReplicasToWrite: 0 } }).manifests;
    await applyObjects(config, manifests as unknown as KubernetesObject[]);
    const ready = async () => {
      const list = await core.listNamespacedPod({ namespace: namespace.name, labelSelector: 'app.kubernetes.io/instance=plain' });
      const readyPods = list.items.filter((pod) => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
      return readyPods.length === 3 ? readyPods : undefined;
    };
    const pods = await waitFor(ready, { description: 'three Ready pods of the workload', timeoutMs: 90_000 });
    const Redis = (await import('ioredis')).default;
    const target = pods.find((pod) => pod.metadata!.name === 'plain-1')!;
    const connect = (host: string) => new Redis({ host, port: 6379, password: 's3cret', lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
    // Without the controller every pod stays fenced (a read-only replica); promote one by hand to write.
    const first = connect(target.status!.podIP!);
    await first.connect();
    expect(await first.ping()).toBe('PONG');
    expect(await first.call('ROLE')).toEqual(expect.arrayContaining(['slave']));
    await first.call('REPLICAOF', 'NO', 'ONE');
    await first.set('survives', 'a pod deletion');
    await first.call('BGREWRITEAOF');
    await waitFor(async () => (await first.info('persistence')).includes('aof_rewrite_in_progress:0'), { description: 'AOF rewrite done' });
    first.disconnect();
    await core.deleteNamespacedPod({ namespace: namespace.name, name: 'plain-1' });
    await waitFor(async () => {
      const pod = (await ready())?.find((candidate) => candidate.metadata!.name === 'plain-1');
      return pod && pod.metadata!.uid !== target.metadata!.uid ? pod : undefined;
    }, { description: 'plain-1 recreated and Ready', timeoutMs: 90_000 });
    const recreated = await core.readNamespacedPod({ namespace: namespace.name, name: 'plain-1' });
    const second = connect(recreated.status!.podIP!);
    await second.connect();
    try {
      expect(await second.get('survives')).toBe('a pod deletion');
    } finally {
      second.disconnect();
    }
  });
});
