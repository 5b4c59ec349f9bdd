import type { KubernetesObject, V1Pod } from '@kubernetes/client-node';
import { E2E_TEST_TIMEOUT_MILLISECONDS, k8s, applyObjects, chaos, loadKubeConfig, nodeAgent, pingRedis, useTestNamespace, waitFor, waitForPod, withRedis } from './support';

jest.setTimeout(E2E_TEST_TIMEOUT_MILLISECONDS);

const config = loadKubeConfig();
const namespace = useTestNamespace('cluster-statefulset');
const podNames = ['redis-0', 'redis-1', 'redis-2'];

/** A plain 3-replica Redis StatefulSet with persistent data and an exec readiness probe, plus a ClusterIP Service. */
function redisStatefulSet(): KubernetesObject[] {
  const labels = { app: 'plain-redis' };
  return [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'redis' },
      spec: { selector: labels, ports: [{ name: 'redis', port: 6379, targetPort: 'redis' }] },
    } as KubernetesObject,
    {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'redis' },
      spec: {
        serviceName: 'redis',
        replicas: 3,
        podManagementPolicy: 'Parallel',
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            terminationGracePeriodSeconds: 10,
            containers: [{
              name: 'redis',
              image: 'redis:7.2',
              args: ['--appendonly', 'yes', '--appendfsync', 'always'],
              ports: [{ name: 'redis', containerPort: 6379 }],
              env: [{ name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }],
              readinessProbe: { exec: { command: ['sh', '-c', 'redis-cli -h $(POD_IP) ping | grep -q PONG'] }, periodSeconds: 1, failureThreshold: 1 },
              volumeMounts: [{ name: 'data', mountPath: '/data' }],
            }],
          },
        },
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
      },
    } as KubernetesObject,
  ];
}

function podIpOf(pod: V1Pod): string {
  const ip = pod.status?.podIP;
  if (!ip) throw new Error(`pod ${pod.metadata?.name} has no IP`);
  return ip;
}

describe('a plain Redis StatefulSet on the local cluster', () => {
  beforeAll(async () => {
    await applyObjects(config, redisStatefulSet(), { namespace: namespace.name });
  });

  it('gets 3 Running, Ready pods whose Redis answers PING at the pod IP', async () => {
    const pods = await Promise.all(podNames.map((name) => waitForPod(namespace.name, name)));
    const ips = pods.map(podIpOf);
    expect(new Set(ips).size).toBe(3);
    for (const ip of ips) {
      expect(ip).toMatch(/^127\./);
      expect(await pingRedis(ip)).toBe('PONG');
    }
    const statefulSet = await config.makeApiClient(k8s.AppsV1Api).readNamespacedStatefulSet({ name: 'redis', namespace: namespace.name });
    await waitFor(async () => (await config.makeApiClient(k8s.AppsV1Api).readNamespacedStatefulSet({ name: 'redis', namespace: namespace.name })).status?.readyReplicas === 3, {
      description: `StatefulSet ${statefulSet.metadata?.name} reporting 3 ready replicas`,
    });
  });

  it('keeps a key written before its pod was deleted (the claim keeps its folder)', async () => {
    const before = await waitForPod(namespace.name, 'redis-1');
    await withRedis(podIpOf(before), (client) => client.set('survivor', 'still-here'));
    await chaos.deletePod(namespace.name, 'redis-1');
    const after = await waitForPod(namespace.name, 'redis-1', { notUid: before.metadata?.uid });
    expect(await withRedis(podIpOf(after), (client) => client.get('survivor'))).toBe('still-here');
  });

  it('proxies its ClusterIP Service to a Ready pod', async () => {
    await Promise.all(podNames.map((name) => waitForPod(namespace.name, name)));
    const service = await waitFor(async () => (await nodeAgent().services()).find((entry) => entry.namespace === namespace.name && entry.name === 'redis' && entry.endpoints.length === 3), {
      description: 'the Service proxy with 3 endpoints',
    });
    expect(service.clusterIp).toMatch(/^127\./);
    expect(await pingRedis(service.clusterIp)).toBe('PONG');
  });
});
