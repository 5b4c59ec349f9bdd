import type { V1Pod, V1Service } from '@kubernetes/client-node';
import { E2E_TEST_TIMEOUT_MILLISECONDS, k8s, loadKubeConfig, useTestNamespace, waitFor } from './support';

jest.setTimeout(E2E_TEST_TIMEOUT_MILLISECONDS);

/**
 * A burst of pods like a large benchmark makes: many bare pods at once, each with a Service selecting it. The node
 * agent used to bind such a burst at a few pods per second and then stall (its endpoint refresh cost Services ×
 * pods on every pod change, starving the loop that binds and reports), losing statuses on the way.
 */
const POD_COUNT = 300;
const CREATE_CONCURRENCY = 8;
const SETTLE_TIMEOUT_MILLISECONDS = 60_000;

const config = loadKubeConfig();
const core = config.makeApiClient(k8s.CoreV1Api);
const namespace = useTestNamespace('cluster-scale');
const names = Array.from({ length: POD_COUNT }, (_, index) => `bare-${index}`);

function barePod(name: string): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: name } },
    // Not a Redis image: the agent binds it and reports it, but runs no process.
    spec: { terminationGracePeriodSeconds: 1, containers: [{ name: 'app', image: 'busybox:1.36' }] },
  };
}

function serviceFor(name: string): V1Service {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { selector: { app: name }, ports: [{ port: 6379 }] } };
}

async function inParallel<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await work(items[next++]);
  }));
}

function waitingReason(pod: V1Pod): string | undefined {
  return pod.status?.containerStatuses?.[0]?.state?.waiting?.reason;
}

describe('the node agent under a burst of pods', () => {
  it(`binds ${POD_COUNT} bare non-Redis pods and reports each as waiting with ImageNotRunnable`, async () => {
    await inParallel(names, CREATE_CONCURRENCY, (name) => core.createNamespacedService({ namespace: namespace.name, body: serviceFor(name) }));
    await inParallel(names, CREATE_CONCURRENCY, (name) => core.createNamespacedPod({ namespace: namespace.name, body: barePod(name) }));

    const pods = await waitFor(async () => {
      const listed = (await core.listNamespacedPod({ namespace: namespace.name })).items;
      const reported = listed.filter((pod) => pod.spec?.nodeName && waitingReason(pod) === 'ImageNotRunnable');
      return reported.length === POD_COUNT ? listed : undefined;
    }, { description: `${POD_COUNT} pods bound and reporting ImageNotRunnable`, timeoutMs: SETTLE_TIMEOUT_MILLISECONDS, intervalMs: 1000 });

    const [node] = (await core.listNode()).items;
    for (const pod of pods) {
      expect(pod.spec?.nodeName).toBe(node.metadata?.name);
      expect(pod.status?.phase).toBe('Pending');
      expect(pod.status?.podIP).toMatch(/^127\./);
      expect(pod.status?.conditions?.find((condition) => condition.type === 'PodScheduled')?.status).toBe('True');
      expect(waitingReason(pod)).toBe('ImageNotRunnable');
    }
    expect(new Set(pods.map((pod) => pod.status?.podIP)).size).toBe(POD_COUNT);
  });

  it('deletes them all again', async () => {
    await core.deleteCollectionNamespacedPod({ namespace: namespace.name });
    await waitFor(async () => (await core.listNamespacedPod({ namespace: namespace.name })).items.length === 0, {
      description: `every pod of ${namespace.name} gone`,
      timeoutMs: SETTLE_TIMEOUT_MILLISECONDS,
      intervalMs: 1000,
    });
  });
});
