// client-node is ESM-only; jest cannot load it, Node can (see nativeRequire).
jest.mock('@kubernetes/client-node', () =>
  jest.requireActual<typeof import('../operator/runtime/support/native-require')>('../operator/runtime/support/native-require').nativeRequire('@kubernetes/client-node'),
);

import { addFinalizer, removeFinalizer } from '../../operator/runtime/client/finalizers';
import { ApiEventSink } from '../../operator/runtime/events/event-sink';
import { EventRecorder } from '../../operator/runtime/events/recorder';
import type { KubernetesObject } from '../../operator/runtime/kubernetes-object';
import { e2eClient } from '../operator/runtime/support/e2e-cluster';
import { useTestNamespace } from './support';
import { silentLogger } from '../operator/runtime/support/test-logger';

jest.setTimeout(60_000);

describe('client helpers against a real apiserver', () => {
  const client = e2eClient();
  const namespace = useTestNamespace('rt-client');

  afterAll(() => client.rest.close());

  const configMap = (name: string, data: Record<string, string>): KubernetesObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: namespace.name, labels: { app: 'e2e' } },
    data,
  });

  it('server-side apply of an unchanged object is a no-op (resourceVersion unchanged)', async () => {
    const first = await client.apply(configMap('ssa', { a: '1' }));
    const again = await client.apply(configMap('ssa', { a: '1' }));
    expect(again.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
    const changed = await client.apply(configMap('ssa', { a: '2' }));
    expect(changed.metadata.resourceVersion).not.toBe(first.metadata.resourceVersion);
    expect(changed.metadata.managedFields?.some((entry) => (entry as { manager?: string }).manager === 'redkite')).toBe(true);
  });

  it('server-side apply takes over fields another manager set (force)', async () => {
    await client.apply(configMap('contested', { a: 'theirs' }), { fieldManager: 'someone-else' });
    const ours = await client.apply(configMap('contested', { a: 'ours' }));
    expect(ours.data).toEqual({ a: 'ours' });
  });

  it('adds and removes finalizers without losing a concurrent change', async () => {
    const created = await client.apply(configMap('finalized', {}));
    const stale = await addFinalizer(client, created, 'redkite.io/first');
    // Someone else adds a finalizer after we read: our stale copy must not overwrite theirs.
    await client.mergePatch({ apiVersion: 'v1', kind: 'ConfigMap', namespace: namespace.name, name: 'finalized' }, {
      metadata: { finalizers: ['redkite.io/first', 'other.io/theirs'] },
    });
    const removed = await removeFinalizer(client, stale, 'redkite.io/first');
    expect(removed.metadata.finalizers).toEqual(['other.io/theirs']);
    await removeFinalizer(client, removed, 'other.io/theirs');
  });

  it('patches status through the status subresource only', async () => {
    const service = await client.apply<KubernetesObject>({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'lb', namespace: namespace.name },
      spec: { type: 'LoadBalancer', ports: [{ port: 6379 }] },
    });
    const patched = await client.patchStatus<KubernetesObject>(
      { apiVersion: 'v1', kind: 'Service', namespace: namespace.name, name: 'lb' },
      { loadBalancer: { ingress: [{ ip: '127.0.0.99' }] } },
      { resourceVersion: service.metadata.resourceVersion },
    );
    expect(patched.status).toMatchObject({ loadBalancer: { ingress: [{ ip: '127.0.0.99' }] } });
    // The status subresource ignores everything but status.
    expect(patched.spec).toEqual(service.spec);
    await expect(
      client.patchStatus({ apiVersion: 'v1', kind: 'Service', namespace: namespace.name, name: 'lb' }, { loadBalancer: {} }, { resourceVersion: service.metadata.resourceVersion }),
    ).rejects.toMatchObject({ statusCode: 409 });
  });

  it('records Events on events.k8s.io/v1 and aggregates repeats into a series', async () => {
    const regarding = await client.apply(configMap('evented', {}));
    const recorder = new EventRecorder(new ApiEventSink(client), { reportingController: 'redkite.io/e2e', reportingInstance: 'jest', logger: silentLogger });
    const description = { type: 'Normal', reason: 'Tested', action: 'Test', note: 'repeated note' } as const;
    expect(await recorder.event(regarding, description)).toBe('created');
    expect(await recorder.event(regarding, description)).toBe('aggregated');
    expect(await recorder.event(regarding, description)).toBe('aggregated');
    const events = await client.list<KubernetesObject>('events.k8s.io/v1', 'Event', { namespace: namespace.name });
    expect(events.items).toHaveLength(1);
    expect(events.items[0]).toMatchObject({ reason: 'Tested', series: { count: 3 }, regarding: { name: 'evented', kind: 'ConfigMap' } });
  });
});
