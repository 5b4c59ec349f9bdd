// client-node is ESM-only; jest cannot load it, Node can (see nativeRequire).
jest.mock('@kubernetes/client-node', () =>
  jest.requireActual<typeof import('../operator/runtime/support/native-require')>('../operator/runtime/support/native-require').nativeRequire('@kubernetes/client-node'),
);

import type { KubernetesClient } from '../../operator/runtime/client/kubernetes-client';
import { ClientListWatchSource } from '../../operator/runtime/informer/client-list-watch-source';
import { Informer } from '../../operator/runtime/informer/informer';
import type { ListRequest, ListWatchSource, RawWatchEvent, WatchRequest } from '../../operator/runtime/informer/list-watch-source';
import type { KubernetesObject } from '../../operator/runtime/kubernetes-object';
import { e2eClient } from '../operator/runtime/support/e2e-cluster';
import { createTestNamespace, deleteTestNamespace, nodeAgent, useTestNamespace, waitFor } from './support';
import { recordingLogger } from '../operator/runtime/support/test-logger';

jest.setTimeout(240_000);

/** Counts lists and watches of the real source, so the test can prove a relist happened. */
class CountingSource implements ListWatchSource<KubernetesObject> {
  lists = 0;
  watches = 0;
  constructor(private readonly inner: ListWatchSource<KubernetesObject>) {}
  get description(): string {
    return this.inner.description;
  }
  list(request: ListRequest) {
    if (!request.continueToken) this.lists += 1;
    return this.inner.list(request);
  }
  watch(request: WatchRequest, onEvent: (event: RawWatchEvent<KubernetesObject>) => void) {
    this.watches += 1;
    return this.inner.watch(request, onEvent);
  }
}

const configMap = (namespace: string, name: string, value: string): KubernetesObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, labels: { 'redkite.io/e2e': 'informer' } },
  data: { value },
});

async function truth(client: KubernetesClient, namespace: string): Promise<string> {
  const list = await client.list('v1', 'ConfigMap', { namespace, labelSelector: 'redkite.io/e2e=informer' });
  return summarize(list.items);
}

function summarize(objects: KubernetesObject[]): string {
  return objects
    .map((object) => `${object.metadata.name}=${(object.data as Record<string, string>).value}@${object.metadata.resourceVersion}`)
    .sort()
    .join(',');
}

describe('informer against a real apiserver', () => {
  const client = e2eClient();
  const namespace = useTestNamespace('rt-informer');
  let informer: Informer<KubernetesObject>;
  let source: CountingSource;
  const { logger, entries } = recordingLogger();

  beforeAll(async () => {
    source = new CountingSource(
      new ClientListWatchSource(client, { apiVersion: 'v1', kind: 'ConfigMap', namespace: namespace.name, labelSelector: 'redkite.io/e2e=informer' }),
    );
    informer = new Informer(source, { logger, backoff: { maxDelayMs: 5000 } });
    informer.start();
  });

  afterAll(async () => {
    await informer?.stop();
    client.rest.close();
  });

  const cacheMatchesTruth = (description: string) =>
    waitFor(async () => summarize(informer.store.list()) === (await truth(client, namespace.name)), { description, timeoutMs: 60_000 });

  it('mirrors creates, updates and deletes', async () => {
    for (const name of ['a', 'b', 'c', 'd']) await client.apply(configMap(namespace.name, name, '1'));
    await client.apply(configMap(namespace.name, 'b', '2'));
    await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: namespace.name, name: 'd' });
    await cacheMatchesTruth('the cache to hold a, b=2, c');
    expect(informer.store.list().map((object) => object.metadata.name).sort()).toEqual(['a', 'b', 'c']);
    expect(informer.store.list().every((object) => object.metadata.managedFields === undefined)).toBe(true);
  });

  it('survives a kube-apiserver restart and ends with the true state', async () => {
    const watchesBefore = source.watches;
    await nodeAgent().restartApiServer();
    await client.apply(configMap(namespace.name, 'a', 'after-restart'));
    await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: namespace.name, name: 'c' });
    await client.apply(configMap(namespace.name, 'e', '1'));
    await cacheMatchesTruth('the cache to catch up after the restart');
    expect(source.watches).toBeGreaterThan(watchesBefore);
    expect(entries.filter((entry) => entry.level === 'warn').length).toBeGreaterThan(0);
  });

  it('relists after 410 Gone (etcd compacted past its resourceVersion) and ends with the true state', async () => {
    const listsBefore = source.lists;
    // Move etcd's revision past the informer's (writes it does not see), compact, then break its watch: it must
    // resume from a compacted resourceVersion, get 410, and relist.
    const other = await createTestNamespace('rt-informer-noise');
    try {
      for (let index = 0; index < 5; index += 1) await client.apply(configMap(other, `noise-${index}`, String(index)));
      await nodeAgent().compactEtcd();
      await nodeAgent().restartApiServer();
      await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: namespace.name, name: 'a' });
      await client.apply(configMap(namespace.name, 'b', 'after-410'));
      await client.apply(configMap(namespace.name, 'f', '1'));
      await cacheMatchesTruth('the cache to catch up after the relist');
      await waitFor(() => source.lists > listsBefore, { description: 'a relist', timeoutMs: 60_000 });
      expect(entries.some((entry) => String(entry.msg).includes('expired (410 Gone); relisting'))).toBe(true);
    } finally {
      await deleteTestNamespace(other);
    }
    expect(informer.store.list().map((object) => object.metadata.name).sort()).toEqual(['b', 'e', 'f']);
  });
});
