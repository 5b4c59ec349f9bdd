import { Informer } from '../../../../operator/runtime/informer/informer';
import type { KubernetesObject } from '../../../../operator/runtime/kubernetes-object';
import { FakeListWatchSource } from '../support/fake-list-watch-source';
import { configMap } from '../support/objects';
import { recordingLogger, silentLogger } from '../support/test-logger';

interface Change {
  readonly type: 'add' | 'update' | 'delete';
  readonly name: string;
}

function informerOver(source: FakeListWatchSource, options: { logger?: typeof silentLogger } = {}) {
  const informer = new Informer(source, {
    listPageSize: 2,
    minWatchTimeoutSeconds: 60,
    silenceGraceMs: 5000,
    random: () => 0,
    logger: options.logger ?? silentLogger,
  });
  const changes: Change[] = [];
  const name = (object: KubernetesObject) => object.metadata?.name ?? '';
  informer.addEventHandler({
    onAdd: (object) => changes.push({ type: 'add', name: name(object) }),
    onUpdate: (_old, object) => changes.push({ type: 'update', name: name(object) }),
    onDelete: (object) => changes.push({ type: 'delete', name: name(object) }),
  });
  return { informer, changes };
}

const statusGone = { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired', message: 'too old resource version' };

describe('Informer', () => {
  let source: FakeListWatchSource;
  beforeEach(() => {
    jest.useFakeTimers({ now: 0 });
    source = new FakeListWatchSource();
  });
  afterEach(() => jest.useRealTimers());

  it('lists in pages, reports adds, and has synced only after the last page', async () => {
    for (const name of ['a', 'b', 'c']) source.put(configMap(name));
    const { informer, changes } = informerOver(source);
    expect(informer.hasSynced()).toBe(false);
    informer.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(source.listRequests.map((request) => [request.limit, request.continueToken])).toEqual([
      [2, undefined],
      [2, '2'],
    ]);
    expect(informer.hasSynced()).toBe(true);
    expect(changes).toEqual([
      { type: 'add', name: 'a' },
      { type: 'add', name: 'b' },
      { type: 'add', name: 'c' },
    ]);
    await informer.stop();
  });

  it('watches from the list resourceVersion with bookmarks and a server-side timeout', async () => {
    const { informer } = informerOver(source);
    informer.start();
    await jest.advanceTimersByTimeAsync(0);
    const request = source.currentWatch!.request;
    expect(request.resourceVersion).toBe('100');
    expect(request.allowWatchBookmarks).toBe(true);
    expect(request.timeoutSeconds).toBe(60);
    await informer.stop();
  });

  it('randomizes the watch timeout between the minimum and twice the minimum', async () => {
    const informer = new Informer(source, { minWatchTimeoutSeconds: 300, random: () => 0.99, logger: silentLogger });
    informer.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(source.currentWatch!.request.timeoutSeconds).toBe(597);
    await informer.stop();
  });

  it('applies watch events to the cache and reports them', async () => {
    source.put(configMap('a'));
    const { informer, changes } = informerOver(source);
    informer.start();
    await jest.advanceTimersByTimeAsync(0);
    const watch = source.currentWatch!;
    watch.send({ type: 'ADDED', object: configMap('b', { resourceVersion: '101' }) });
    watch.send({ type: 'MODIFIED', object: configMap('a', { resourceVersion: '102', data: { k: 'v' } }) });
    watch.send({ type: 'DELETED', object: configMap('b', { resourceVersion: '103' }) });
    expect(changes.slice(1)).toEqual([
      { type: 'add', name: 'b' },
      { type: 'update', name: 'a' },
      { type: 'delete', name: 'b' },
    ]);
    expect(informer.store.get({ namespace: 'default', name: 'a' })?.data).toEqual({ k: 'v' });
    expect(informer.store.get({ namespace: 'default', name: 'b' })).toBeUndefined();
    await informer.stop();
  });

  it('stores objects without managedFields', async () => {
    source.put(configMap('a', { withManagedFields: true }));
    const { informer } = informerOver(source);
    informer.start();
    await jest.advanceTimersByTimeAsync(0);
    source.currentWatch!.send({ type: 'ADDED', object: configMap('b', { resourceVersion: '101', withManagedFields: true }) });
    for (const object of informer.store.list()) expect(object.metadata).not.toHaveProperty('managedFields');
    expect(informer.store.size).toBe(2);
    await informer.stop();
  });

  it('resumes from the last bookmark after the server closes the watch, without relisting', async () => {
    const { informer } = informerOver(source);
    informer.start();
    await jest.advanceTimersByTimeAsync(0);
    source.currentWatch!.send({ type: 'BOOKMARK', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: '250' } } });
    await jest.advanceTimersByTimeAsync(60_000);
    source.currentWatch!.close();
    await jest.advanceTimersByTimeAsync(0);
    expect(source.watches).toHaveLength(2);
    expect(source.currentWatch!.request.resourceVersion).toBe('250');
    expect(source.listRequests).toHaveLength(1);
    await informer.stop();
  });

  it('relists on 410 Gone and reports objects that vanished meanwhile as deleted', async () => {
    for (const name of ['a', 'b', 'c']) source.put(configMap(name));
    const { informer, changes } = informerOver(source);
    informer.start();
    await jest.advanceTimersByTimeAsync(0);
    changes.length = 0;
    // While the watch was down: b deleted, c changed, d created; a unchanged.
    source.remove('b');
    source.put(configMap('c', { resourceVersion: '150' }));
    source.put(configMap('d', { resourceVersion: '151' }));
    source.resourceVersion = 160;
    source.currentWatch!.send({ type: 'ERROR', object: statusGone as unknown as KubernetesObject });
    await jest.advanceTimersByTimeAsync(0);
    expect(source.listRequests.filter((request) => request.continueToken === undefined)).toHaveLength(2);
    expect(changes).toEqual([
      { type: 'update', name: 'c' },
      { type: 'add', name: 'd' },
      { type: 'delete', name: 'b' },
    ]);
    expect(informer.store.keys().map((key) => key.name).sort()).toEqual(['a', 'c', 'd']);
    expect(source.currentWatch!.request.resourceVersion).toBe('160');
    await informer.stop();
  });

  it('also relists when the watch request itself answers 410', async () => {
    const { informer } = informerOver(source);
    informer.start();
    await jest.advanceTimersByTimeAsync(0);
    source.currentWatch!.fail(Object.assign(new Error('Gone'), { statusCode: 410 }));
    await jest.advanceTimersByTimeAsync(0);
    expect(source.listRequests).toHaveLength(2);
    await informer.stop();
  });

  it('restarts a broken watch from the last resourceVersion after a jittered backoff that grows', async () => {
    const { informer } = informerOver(source);
    informer.start();
    await jest.advanceTimersByTimeAsync(0);
    source.currentWatch!.send({ type: 'ADDED', object: configMap('a', { resourceVersion: '120' }) });
    const restartDelays: number[] = [];
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const before = source.watches.length;
      source.currentWatch!.fail(new Error('connection reset'));
      const failedAt = Date.now();
      while (source.watches.length === before) await jest.advanceTimersByTimeAsync(100);
      restartDelays.push(Date.now() - failedAt);
    }
    // random() = 0: exactly 800 ms, 1.6 s, 3.2 s (timer steps of 100 ms).
    expect(restartDelays).toEqual([800, 1600, 3200]);
    expect(source.currentWatch!.request.resourceVersion).toBe('120');
    expect(source.listRequests).toHaveLength(1);
    await informer.stop();
  });

  it('caps the restart backoff at 30 seconds and never gives up', async () => {
    const { informer } = informerOver(source);
    source.listFailures.push(...Array.from({ length: 9 }, () => new Error('apiserver down')));
    const listTimes: number[] = [];
    const original = source.list.bind(source);
    source.list = (request) => {
      listTimes.push(Date.now());
      return original(request);
    };
    informer.start();
    await jest.advanceTimersByTimeAsync(10 * 60_000);
    const gaps = listTimes.slice(1).map((time, index) => time - listTimes[index]);
    expect(gaps).toEqual([800, 1600, 3200, 6400, 12_800, 25_600, 30_000, 30_000, 30_000]);
    expect(informer.hasSynced()).toBe(true);
    await informer.stop();
  });

  it('restarts a watch that stays silent past its timeout', async () => {
    const { logger, entries } = recordingLogger();
    const { informer } = informerOver(source, { logger });
    informer.start();
    await jest.advanceTimersByTimeAsync(0);
    // Timeout 60 s + 5 s grace of silence, then backoff 800 ms.
    await jest.advanceTimersByTimeAsync(64_999);
    expect(source.watches).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1 + 800);
    expect(source.watches).toHaveLength(2);
    expect(source.watches[0].request.signal.aborted).toBe(true);
    expect(entries.some((entry) => String(entry.msg).includes('silent'))).toBe(true);
    await informer.stop();
  });

  it('keeps a watch that delivers events alive past its silence limit', async () => {
    const { informer } = informerOver(source);
    informer.start();
    await jest.advanceTimersByTimeAsync(0);
    for (let second = 1; second <= 120; second += 1) {
      await jest.advanceTimersByTimeAsync(1000);
      source.currentWatch!.send({ type: 'BOOKMARK', object: { metadata: { resourceVersion: String(200 + second) } } });
    }
    expect(source.watches).toHaveLength(1);
    await informer.stop();
  });

  it('backs off on non-410 error events', async () => {
    const { informer } = informerOver(source);
    informer.start();
    await jest.advanceTimersByTimeAsync(0);
    source.currentWatch!.send({ type: 'ERROR', object: { code: 500, message: 'internal' } as unknown as KubernetesObject });
    await jest.advanceTimersByTimeAsync(799);
    expect(source.watches).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(source.watches).toHaveLength(2);
    expect(source.listRequests).toHaveLength(1);
    await informer.stop();
  });

  it('restarts an interrupted paged list from the first page and discards the partial result', async () => {
    for (const name of ['a', 'b', 'c']) source.put(configMap(name));
    const original = source.list.bind(source);
    let calls = 0;
    source.list = async (request) => {
      calls += 1;
      if (calls === 2) throw Object.assign(new Error('continue token expired'), { statusCode: 410 });
      return original(request);
    };
    const { informer, changes } = informerOver(source);
    informer.start();
    await jest.advanceTimersByTimeAsync(1000);
    expect(changes.map((change) => change.name)).toEqual(['a', 'b', 'c']);
    expect(informer.hasSynced()).toBe(true);
    await informer.stop();
  });

  it('logs handler exceptions and keeps delivering to other handlers', async () => {
    const { logger, entries } = recordingLogger();
    const { informer, changes } = informerOver(source, { logger });
    informer.addEventHandler({
      onAdd: () => {
        throw new Error('handler bug');
      },
    });
    informer.start();
    await jest.advanceTimersByTimeAsync(0);
    source.currentWatch!.send({ type: 'ADDED', object: configMap('a', { resourceVersion: '101' }) });
    expect(changes).toEqual([{ type: 'add', name: 'a' }]);
    expect(entries.some((entry) => entry.msg === 'informer event handler threw')).toBe(true);
    await informer.stop();
  });

  it('replays cached objects to a handler registered after sync', async () => {
    source.put(configMap('a'));
    const { informer } = informerOver(source);
    informer.start();
    await jest.advanceTimersByTimeAsync(0);
    const late: string[] = [];
    informer.addEventHandler({ onAdd: (object) => late.push(object.metadata!.name!) });
    expect(late).toEqual(['a']);
    await informer.stop();
  });

  it('waitForSync resolves after the first list and stop ends the watch', async () => {
    const { informer } = informerOver(source);
    informer.start();
    await expect(informer.waitForSync()).resolves.toBe(true);
    await jest.advanceTimersByTimeAsync(0);
    await informer.stop();
    expect(source.currentWatch!.request.signal.aborted).toBe(true);
  });
});
