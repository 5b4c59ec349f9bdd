import type { V1Pod, V1SecurityContext } from '@kubernetes/client-node';
import { E2E_TEST_TIMEOUT_MILLISECONDS, k8s, loadKubeConfig, nodeAgent, useTestNamespace, waitFor, waitForPod } from './support';

jest.setTimeout(E2E_TEST_TIMEOUT_MILLISECONDS);

const config = loadKubeConfig();
const core = config.makeApiClient(k8s.CoreV1Api);
const restricted = useTestNamespace('cluster-restricted', { labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } });

function redisPod(name: string, securityContext: V1SecurityContext): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      securityContext: { runAsNonRoot: true, runAsUser: 999, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [{ name: 'redis', image: 'redis:7.2', securityContext }],
    },
  };
}

describe('the local control plane', () => {
  it('reports the Kubernetes version it was built from', async () => {
    const version = await config.makeApiClient(k8s.VersionApi).getCode();
    expect(version.gitVersion).toBe('v1.34.4');
  });

  it('has one node, and it is Ready', async () => {
    const nodes = await core.listNode();
    expect(nodes.items).toHaveLength(1);
    expect(nodes.items[0].status?.conditions?.find((condition) => condition.type === 'Ready')?.status).toBe('True');
  });

  it('admits a pod with a restricted security context in a namespace enforcing the restricted level', async () => {
    const pod = redisPod('restricted-redis', { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    await core.createNamespacedPod({ namespace: restricted.name, body: pod });
    await waitForPod(restricted.name, 'restricted-redis');
  });

  it('rejects a privileged pod in a namespace enforcing the restricted level', async () => {
    const pod = redisPod('privileged-redis', { privileged: true });
    const rejection = core.createNamespacedPod({ namespace: restricted.name, body: pod });
    await expect(rejection).rejects.toMatchObject({ code: 403 });
    await expect(rejection).rejects.toThrow(/violates PodSecurity .*restricted:latest.*must not set securityContext.privileged=true/);
  });

  it('survives an apiserver restart on the same address, and etcd compaction', async () => {
    const { durationMilliseconds } = await nodeAgent().restartApiServer();
    expect(durationMilliseconds).toBeGreaterThan(0);
    await waitFor(async () => (await core.listNode()).items.length === 1, { description: 'the restarted apiserver answering' });
    const { revision } = await nodeAgent().compactEtcd();
    expect(revision).toBeGreaterThan(1);
  });
});
