import { isConflict, isNotFound, KubernetesApiError } from '../../../../operator/runtime/errors';
import type { KubernetesObject } from '../../../../operator/runtime/kubernetes-object';
import { CallJournal } from './call-journal';
import { FakeKubernetes } from './fake-kubernetes';

const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'settings' } as const;

function apiserver(): FakeKubernetes {
  const kube = new FakeKubernetes(new CallJournal(), () => Date.parse('2030-01-01T00:00:00Z'));
  kube.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'shop' }, data: { a: '1' } });
  return kube;
}

function versionOf(object: KubernetesObject | undefined): number {
  return Number(object?.metadata.resourceVersion);
}

describe('FakeKubernetes (the apiserver of the reconciler suite)', () => {
  it('gives every accepted write a larger resourceVersion', async () => {
    const kube = apiserver();
    const before = versionOf(kube.read(CONFIG_MAP));
    const patched = await kube.mergePatch(CONFIG_MAP, { data: { b: '2' } });
    const statusPatched = await kube.patchStatus(CONFIG_MAP, { seen: true });
    expect(versionOf(patched)).toBeGreaterThan(before);
    expect(versionOf(statusPatched)).toBeGreaterThan(versionOf(patched));
  });

  it('refuses a merge patch carrying a stale resourceVersion with a 409 that isConflict recognises', async () => {
    const kube = apiserver();
    const stale = kube.read(CONFIG_MAP)!.metadata.resourceVersion;
    await kube.mergePatch(CONFIG_MAP, { data: { b: '2' } });
    const refusal = kube.mergePatch(CONFIG_MAP, { metadata: { resourceVersion: stale }, data: { c: '3' } });
    await expect(refusal).rejects.toBeInstanceOf(KubernetesApiError);
    await expect(refusal.catch((error: unknown) => isConflict(error))).resolves.toBe(true);
    expect(kube.read<KubernetesObject & { data: Record<string, string> }>(CONFIG_MAP)!.data).toEqual({ a: '1', b: '2' });
  });

  it('refuses a status patch with a stale resourceVersion option with a 409', async () => {
    const kube = apiserver();
    const stale = kube.read(CONFIG_MAP)!.metadata.resourceVersion;
    await kube.patchStatus(CONFIG_MAP, { phase: 'one' });
    await expect(kube.patchStatus(CONFIG_MAP, { phase: 'two' }, { resourceVersion: stale }).catch((error: unknown) => isConflict(error))).resolves.toBe(true);
    expect(kube.read(CONFIG_MAP)!.status).toEqual({ phase: 'one' });
  });

  it('accepts a write whose resourceVersion is current', async () => {
    const kube = apiserver();
    const current = kube.read(CONFIG_MAP)!.metadata.resourceVersion;
    await expect(kube.patchStatus(CONFIG_MAP, { phase: 'one' }, { resourceVersion: current })).resolves.toMatchObject({ status: { phase: 'one' } });
  });

  it('ignores status sent to the main resource and everything but status sent to the status subresource', async () => {
    const kube = apiserver();
    await kube.mergePatch(CONFIG_MAP, { status: { phase: 'ignored' }, data: { b: '2' } });
    await kube.patchStatus(CONFIG_MAP, { phase: 'kept' });
    expect(kube.read(CONFIG_MAP)).toMatchObject({ data: { a: '1', b: '2' }, status: { phase: 'kept' } });
  });

  it('removes a key a merge patch sets to null', async () => {
    const kube = apiserver();
    await kube.mergePatch(CONFIG_MAP, { data: { a: null } });
    expect(kube.read(CONFIG_MAP)).toMatchObject({ data: {} });
  });

  it('keeps an object with finalizers until its last finalizer is removed', async () => {
    const kube = apiserver();
    await kube.mergePatch(CONFIG_MAP, { metadata: { finalizers: ['keep'] } });
    await kube.delete(CONFIG_MAP);
    expect(kube.read(CONFIG_MAP)?.metadata.deletionTimestamp).toBe('2030-01-01T00:00:00.000Z');
    await kube.mergePatch(CONFIG_MAP, { metadata: { finalizers: [] } });
    expect(kube.read(CONFIG_MAP)).toBeUndefined();
  });

  it('answers 404 for an object that does not exist', async () => {
    const kube = apiserver();
    await expect(kube.get({ ...CONFIG_MAP, name: 'missing' }).catch((error: unknown) => isNotFound(error))).resolves.toBe(true);
  });

  it('carries out nothing for a request whose signal is aborted', async () => {
    const kube = apiserver();
    const controller = new AbortController();
    controller.abort();
    await expect(kube.mergePatch(CONFIG_MAP, { data: { b: '2' } }, { signal: controller.signal })).rejects.toThrow(/failed before an HTTP answer/);
    expect(kube.read(CONFIG_MAP)).toMatchObject({ data: { a: '1' } });
  });

  it('keeps showing the old object in its caches while the watch is stalled', async () => {
    const kube = apiserver();
    const cache = kube.cache({ apiVersion: 'v1', kind: 'ConfigMap' });
    kube.stallWatch();
    await kube.mergePatch(CONFIG_MAP, { data: { b: '2' } });
    expect(cache.store.get({ namespace: 'shop', name: 'settings' })).toMatchObject({ data: { a: '1' } });
    kube.resumeWatch();
    expect(cache.store.get({ namespace: 'shop', name: 'settings' })).toMatchObject({ data: { a: '1', b: '2' } });
  });
});
