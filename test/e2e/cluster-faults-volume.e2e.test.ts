import type { V1Pod } from '@kubernetes/client-node';
import { E2E_TEST_TIMEOUT_MILLISECONDS, chaos, isPodReady, k8s, loadKubeConfig, processOf, useTestNamespace, waitForPod, withRedis } from './support';
import { redisPod } from './support/fault-probes';

jest.setTimeout(E2E_TEST_TIMEOUT_MILLISECONDS);

const core = loadKubeConfig().makeApiClient(k8s.CoreV1Api);
const namespace = useTestNamespace('faults-volume');
const KEYS = 100;

const restartCountOf = (pod: V1Pod): number => pod.status?.containerStatuses?.[0]?.restartCount ?? 0;
const restartedOnce = (before: V1Pod) => (pod: V1Pod): boolean => restartCountOf(pod) === restartCountOf(before) + 1 && isPodReady(pod);

describe('a pod that comes back on an empty volume', () => {
  beforeAll(async () => {
    await core.createNamespacedPersistentVolumeClaim({
      namespace: namespace.name,
      body: { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
    });
    // Every write fsynced to the AOF on the claim: whatever was acknowledged survives a plain kill.
    await core.createNamespacedPod({ namespace: namespace.name, body: redisPod('store', { claimName: 'data', args: ['--appendonly', 'yes', '--appendfsync', 'always'] }) });
    const pod = await waitForPod(namespace.name, 'store');
    await withRedis(pod.status!.podIP!, async (redis) => {
      for (let key = 0; key < KEYS; key++) await redis.set(`key-${key}`, String(key));
    });
  });

  it('keeps its data across a plain kill (the control case)', async () => {
    const before = await waitForPod(namespace.name, 'store');
    await chaos.kill(namespace.name, 'store');
    const after = await waitForPod(namespace.name, 'store', { predicate: restartedOnce(before), description: 'restarted once and Ready' });
    expect(await withRedis(after.status!.podIP!, (redis) => redis.dbsize())).toBe(KEYS);
  });

  it('restarts empty after losing its volume: same pod, IP and claim, no data', async () => {
    const before = await waitForPod(namespace.name, 'store');
    const claimBefore = await core.readNamespacedPersistentVolumeClaim({ name: 'data', namespace: namespace.name });
    const runningPid = (await processOf(namespace.name, 'store'))!.containers[0].pid;

    expect(await chaos.loseVolumes(namespace.name, 'store')).toEqual({ volumes: ['data'], killedPids: [runningPid] });

    const after = await waitForPod(namespace.name, 'store', { predicate: restartedOnce(before), description: 'restarted once and Ready' });
    expect(after.status?.containerStatuses?.[0]?.lastState?.terminated?.exitCode).toBe(137);
    expect([after.metadata?.uid, after.status?.podIP]).toEqual([before.metadata?.uid, before.status?.podIP]);
    expect((await core.readNamespacedPersistentVolumeClaim({ name: 'data', namespace: namespace.name })).spec?.volumeName).toBe(claimBefore.spec?.volumeName);
    expect(await withRedis(after.status!.podIP!, (redis) => redis.dbsize())).toBe(0);
  });

  it('refuses a pod that has no persistent volume', async () => {
    await core.createNamespacedPod({ namespace: namespace.name, body: redisPod('volatile') });
    await waitForPod(namespace.name, 'volatile');
    await expect(chaos.loseVolumes(namespace.name, 'volatile')).rejects.toThrow(/409.*no persistentVolumeClaim volume/);
  });
});
