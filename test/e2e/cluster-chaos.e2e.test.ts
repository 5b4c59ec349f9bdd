import type { V1Pod } from '@kubernetes/client-node';
import Redis from 'ioredis';
import { E2E_TEST_TIMEOUT_MILLISECONDS, k8s, chaos, isPodReady, loadKubeConfig, nodeAgent, pingRedis, processOf, useTestNamespace, waitFor, waitForPod, withRedis } from './support';
import { redisPod } from './support/fault-probes';

jest.setTimeout(E2E_TEST_TIMEOUT_MILLISECONDS);

const config = loadKubeConfig();
const core = config.makeApiClient(k8s.CoreV1Api);
const namespace = useTestNamespace('cluster-chaos');

function podWithImage(name: string, image: string): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      terminationGracePeriodSeconds: 5,
      containers: [{
        name: 'main',
        image,
        env: [{ name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }],
        readinessProbe: { exec: { command: ['redis-cli', '-h', '$(POD_IP)', 'ping'] }, periodSeconds: 1, timeoutSeconds: 1, failureThreshold: 1 },
      }],
    },
  };
}

const restartCountOf = (pod: V1Pod): number => pod.status?.containerStatuses?.[0]?.restartCount ?? 0;

describe('chaos on a Redis pod of the local cluster', () => {
  beforeAll(async () => {
    await core.createNamespacedPod({ namespace: namespace.name, body: podWithImage('victim', 'redis:7.2') });
  });

  it('restarts a killed container: restartCount increments and Redis answers again', async () => {
    const before = await waitForPod(namespace.name, 'victim');
    const killedPid = await chaos.kill(namespace.name, 'victim');
    const after = await waitForPod(namespace.name, 'victim', {
      predicate: (pod) => restartCountOf(pod) === restartCountOf(before) + 1 && isPodReady(pod),
      description: 'restarted once and Ready',
    });
    expect(after.status?.containerStatuses?.[0]?.lastState?.terminated?.exitCode).toBe(137);
    expect((await processOf(namespace.name, 'victim'))?.containers[0].pid).not.toBe(killedPid);
    expect(await pingRedis(after.status!.podIP!)).toBe('PONG');
  });

  it('turns a frozen pod NotReady, and Ready again once thawed', async () => {
    await waitForPod(namespace.name, 'victim');
    await chaos.freeze(namespace.name, 'victim');
    try {
      await waitForPod(namespace.name, 'victim', { predicate: (pod) => !isPodReady(pod), description: 'NotReady while frozen' });
    } finally {
      await chaos.thaw(namespace.name, 'victim');
    }
    const thawed = await waitForPod(namespace.name, 'victim');
    expect(restartCountOf(thawed)).toBeGreaterThanOrEqual(1);
  });

  it('reports a clear waiting reason for an image it cannot run', async () => {
    await core.createNamespacedPod({ namespace: namespace.name, body: podWithImage('exporter', 'oliver006/redis_exporter:v1.62.0') });
    const pod = await waitForPod(namespace.name, 'exporter', {
      predicate: (candidate) => candidate.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ImageNotRunnable',
      description: 'waiting with reason ImageNotRunnable',
    });
    expect(pod.status?.phase).toBe('Pending');
    expect(pod.status?.containerStatuses?.[0]?.state?.waiting?.message).toMatch(/only Redis images/);
    expect(pod.status?.podIP).toMatch(/^127\./);
  });

  it('deletes a pod gracefully through the chaos interface', async () => {
    const pod = await waitForPod(namespace.name, 'victim');
    await chaos.deletePod(namespace.name, 'victim');
    await waitFor(async () => {
      try {
        const current = await core.readNamespacedPod({ name: 'victim', namespace: namespace.name });
        return current.metadata?.uid !== pod.metadata?.uid;
      } catch {
        return true;
      }
    }, { description: 'pod victim gone' });
  });
});

describe('restarts of killed containers, as a kubelet does them', () => {
  // The e2e cluster is launched with the kubelet's 1 s relist and a 1 s back-off base (global-setup.ts).
  const killAndTimeRestart = async (pod: string): Promise<{ milliseconds: number; sawCrashLoopBackOff: boolean }> => {
    const killedPid = await chaos.kill(namespace.name, pod);
    const killedAt = Date.now();
    let sawCrashLoopBackOff = false;
    await waitFor(async () => {
      const current = await processOf(namespace.name, pod);
      const restarted = current?.containers[0].pid !== undefined && current.containers[0].pid !== killedPid;
      if (!restarted) {
        const object = await core.readNamespacedPod({ name: pod, namespace: namespace.name });
        sawCrashLoopBackOff ||= object.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CrashLoopBackOff';
      }
      return restarted;
    }, { description: `${pod} restarted`, intervalMs: 50, timeoutMs: 30_000 });
    return { milliseconds: Date.now() - killedAt, sawCrashLoopBackOff };
  };

  it('waits at least the relist period before the first restart, then backs off doubling (CrashLoopBackOff)', async () => {
    await core.createNamespacedPod({ namespace: namespace.name, body: redisPod('crasher') });
    await waitForPod(namespace.name, 'crasher');
    const first = await killAndTimeRestart('crasher');
    const second = await killAndTimeRestart('crasher');
    const third = await killAndTimeRestart('crasher');
    expect(first.milliseconds).toBeGreaterThanOrEqual(1000);
    expect(first.milliseconds).toBeLessThan(5000);
    expect(first.sawCrashLoopBackOff).toBe(false);
    expect(second.milliseconds).toBeGreaterThanOrEqual(1000);
    expect(third.milliseconds).toBeGreaterThanOrEqual(2000);
    expect(third.sawCrashLoopBackOff).toBe(true);
    const pod = await waitForPod(namespace.name, 'crasher');
    expect(pod.status?.containerStatuses?.[0]?.restartCount).toBe(3);
  });
});

describe("the Service proxy, as kube-proxy's conntrack", () => {
  it('keeps an established connection on the old primary after the primary label moves; new ones go to the new primary', async () => {
    for (const [name, role] of [['one', 'primary'], ['two', 'replica']]) {
      await core.createNamespacedPod({ namespace: namespace.name, body: redisPod(name, { labels: { role } }) });
    }
    const [oneIp, twoIp] = [(await waitForPod(namespace.name, 'one')).status!.podIP!, (await waitForPod(namespace.name, 'two')).status!.podIP!];
    await core.createNamespacedService({
      namespace: namespace.name,
      body: { metadata: { name: 'primary' }, spec: { selector: { role: 'primary' }, ports: [{ port: 6379, targetPort: 'redis' }] } },
    });
    const endpointsOfPrimary = async (): Promise<{ clusterIp: string; endpoints: string[] } | undefined> =>
      (await nodeAgent().services()).find((service) => service.namespace === namespace.name && service.name === 'primary');
    const clusterIp = (await waitFor(async () => {
      const service = await endpointsOfPrimary();
      return service?.endpoints.join() === `${oneIp}:6379` ? service : undefined;
    }, { description: 'Service primary proxied to pod one' })).clusterIp;
    const servedBy = async (client: Redis): Promise<string> => ((await client.call('CONFIG', 'GET', 'bind')) as string[])[1];

    // No reconnects: a closed connection fails the test instead of silently landing on the new primary.
    const held = new Redis({ host: clusterIp, port: 6379, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0, enableOfflineQueue: false });
    try {
      await held.connect();
      const connectionId = await held.client('ID');
      expect(await servedBy(held)).toBe(oneIp);

      await core.patchNamespacedPod({ name: 'one', namespace: namespace.name, body: { metadata: { labels: { role: 'replica' } } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
      await core.patchNamespacedPod({ name: 'two', namespace: namespace.name, body: { metadata: { labels: { role: 'primary' } } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
      await waitFor(async () => (await endpointsOfPrimary())?.endpoints.join() === `${twoIp}:6379`, { description: 'Service primary moved to pod two' });

      expect(await servedBy(held)).toBe(oneIp);
      expect(await held.client('ID')).toBe(connectionId);
      expect(await held.set('written-to-the-old-primary', '1')).toBe('OK');
      expect(await withRedis(clusterIp, (fresh) => servedBy(fresh))).toBe(twoIp);
    } finally {
      held.disconnect();
    }
  });
});
