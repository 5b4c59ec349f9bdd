// client-node is ESM-only; jest cannot load it, Node can (see nativeRequire).
jest.mock('@kubernetes/client-node', () =>
  jest.requireActual<typeof import('../operator/runtime/support/native-require')>('../operator/runtime/support/native-require').nativeRequire('@kubernetes/client-node'),
);

import { loadKubeConfig } from '../../operator/runtime/client/kube-config';
import type { KubernetesObject } from '../../operator/runtime/kubernetes-object';
import { Manager } from '../../operator/runtime/manager';
import { e2eClient } from '../operator/runtime/support/e2e-cluster';
import { kubeconfigPath, useTestNamespace, waitFor } from './support';
import { silentLogger } from '../operator/runtime/support/test-logger';

jest.setTimeout(120_000);

describe('a controller that owns objects, against a real apiserver', () => {
  const client = e2eClient();
  const namespace = useTestNamespace('rt-controller');
  let manager: Manager;
  let running: Promise<void>;
  const reconciled: string[] = [];

  beforeAll(async () => {
    manager = new Manager({
      kubeConfig: loadKubeConfig(kubeconfigPath()),
      namespace: namespace.name,
      metricsBindAddress: '127.0.0.1:0',
      healthProbeBindAddress: '127.0.0.1:0',
      handleSignals: false,
      logger: silentLogger,
    });
    // The owner is a ConfigMap and the owned objects are Secrets: no CRD needed to exercise owns().
    manager
      .controller('owner-e2e')
      .for({ apiVersion: 'v1', kind: 'ConfigMap', labelSelector: 'redkite.io/e2e=owner' })
      .owns({ apiVersion: 'v1', kind: 'Secret' })
      .complete(async (key) => {
        reconciled.push(key.name);
      });
    running = manager.start();
  });

  afterAll(async () => {
    await manager?.stop();
    await running;
    client.rest.close();
  });

  const probe = (path: string) => fetch(`http://127.0.0.1:${manager.healthProbePort}${path}`);

  it('becomes ready once its caches have synced', async () => {
    await waitFor(() => manager.healthProbePort, { description: 'the probe server' });
    expect((await probe('/healthz')).status).toBe(200);
    await waitFor(async () => (await probe('/readyz')).status === 200, { description: 'readiness' });
  });

  it('reconciles the owner when an object it owns is deleted', async () => {
    const owner = await client.apply<KubernetesObject>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'owner', namespace: namespace.name, labels: { 'redkite.io/e2e': 'owner' } },
      data: {},
    });
    await waitFor(() => reconciled.includes('owner'), { description: 'the owner to be reconciled' });
    await client.apply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'owned',
        namespace: namespace.name,
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid!, controller: true }],
      },
      stringData: { password: 'x' },
    });
    await waitFor(() => reconciled.filter((name) => name === 'owner').length >= 2, { description: 'the owner to be reconciled for the new Secret' });
    const before = reconciled.length;
    await client.delete({ apiVersion: 'v1', kind: 'Secret', namespace: namespace.name, name: 'owned' });
    await waitFor(() => reconciled.slice(before).includes('owner'), { description: 'the owner to be reconciled after the delete' });
    expect(reconciled.every((name) => name === 'owner')).toBe(true);
  });

  it('exposes controller-runtime metrics on /metrics', async () => {
    const response = await fetch(`http://127.0.0.1:${manager.metricsPort}/metrics`);
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(text).toMatch(/controller_runtime_reconcile_total\{controller="owner-e2e",result="success"\} [1-9]/);
    for (const name of [
      'controller_runtime_reconcile_errors_total',
      'controller_runtime_reconcile_time_seconds_bucket',
      'controller_runtime_max_concurrent_reconciles',
      'controller_runtime_active_workers',
      'workqueue_depth',
      'workqueue_adds_total',
      'workqueue_queue_duration_seconds_bucket',
      'workqueue_work_duration_seconds_bucket',
      'workqueue_retries_total',
    ]) {
      expect(text).toContain(`${name}{`);
    }
  });
});
