import type { V1Pod } from '@kubernetes/client-node';
import { E2E_TEST_TIMEOUT_MILLISECONDS, k8s, chaos, isPodReady, loadKubeConfig, pingRedis, processOf, useTestNamespace, waitFor, waitForPod } from './support';

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
