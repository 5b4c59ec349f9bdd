import { Controller } from '../../../operator/runtime/controller';
import { ControllerBuilder, ControllerHost, WatchedKind, controllerOwnerKeys, onlyStatusChanged } from '../../../operator/runtime/controller-builder';
import { Informer } from '../../../operator/runtime/informer/informer';
import type { KubernetesObject } from '../../../operator/runtime/kubernetes-object';
import { FakeListWatchSource } from './support/fake-list-watch-source';
import { configMap, controllerReference } from './support/objects';
import { silentLogger } from './support/test-logger';

const redisCluster = { apiVersion: 'redkite.io/v1alpha1', kind: 'RedisCluster' };
const statefulSet = { apiVersion: 'apps/v1', kind: 'StatefulSet' };

class FakeHost implements ControllerHost {
  readonly logger = silentLogger;
  readonly sources = new Map<string, FakeListWatchSource>();
  readonly informers = new Map<string, Informer<KubernetesObject>>();
  controller: Controller | undefined;

  getInformer<T extends KubernetesObject>(kind: WatchedKind): Informer<T> {
    let informer = this.informers.get(kind.kind);
    if (!informer) {
      const source = new FakeListWatchSource();
      this.sources.set(kind.kind, source);
      informer = new Informer(source, { logger: silentLogger });
      this.informers.set(kind.kind, informer);
    }
    return informer as unknown as Informer<T>;
  }

  addController(controller: Controller): void {
    this.controller = controller;
  }

  async startInformers(): Promise<void> {
    for (const informer of this.informers.values()) informer.start();
    await jest.advanceTimersByTimeAsync(0);
  }

  async stop(): Promise<void> {
    await this.controller?.stop(1000);
    await Promise.all([...this.informers.values()].map((informer) => informer.stop()));
  }
}

function owned(kind: string, name: string, owner: { apiVersion: string; kind: string; name: string }, controller = true): KubernetesObject {
  return {
    ...configMap(name, { ownerReferences: [{ ...controllerReference(owner.apiVersion, owner.kind, owner.name), controller }] }),
    apiVersion: 'apps/v1',
    kind,
  };
}

describe('controllerOwnerKeys', () => {
  it('maps an object to its controlling owner of the given kind in its namespace', () => {
    const object = owned('StatefulSet', 'cache-redis', { ...redisCluster, name: 'cache' });
    expect(controllerOwnerKeys(object, redisCluster)).toEqual([{ namespace: 'default', name: 'cache' }]);
  });

  it('matches the owner by group and kind, whatever the version', () => {
    const object = owned('StatefulSet', 's', { apiVersion: 'redkite.io/v1', kind: 'RedisCluster', name: 'cache' });
    expect(controllerOwnerKeys(object, redisCluster)).toHaveLength(1);
  });

  it('ignores non-controller owners and owners of other kinds or groups', () => {
    expect(controllerOwnerKeys(owned('StatefulSet', 's', { ...redisCluster, name: 'c' }, false), redisCluster)).toEqual([]);
    expect(controllerOwnerKeys(owned('StatefulSet', 's', { apiVersion: 'other.io/v1alpha1', kind: 'RedisCluster', name: 'c' }), redisCluster)).toEqual([]);
    expect(controllerOwnerKeys(owned('StatefulSet', 's', { apiVersion: 'v1', kind: 'ConfigMap', name: 'c' }), redisCluster)).toEqual([]);
  });
});

describe('ControllerBuilder', () => {
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  async function build(host: FakeHost, configure: (builder: ControllerBuilder) => ControllerBuilder): Promise<string[]> {
    const reconciled: string[] = [];
    configure(new ControllerBuilder(host, 'redis')).complete(async (key) => {
      reconciled.push(`${key.namespace}/${key.name}`);
    });
    host.controller!.start();
    await host.startInformers();
    return reconciled;
  }

  it('reconciles the primary objects it watches', async () => {
    const host = new FakeHost();
    const reconciled = await build(host, (builder) => builder.for(redisCluster));
    host.sources.get('RedisCluster')!.currentWatch!.send({ type: 'ADDED', object: { ...redisCluster, metadata: { name: 'cache', namespace: 'a', resourceVersion: '5' } } });
    await jest.advanceTimersByTimeAsync(0);
    expect(reconciled).toEqual(['a/cache']);
    await host.stop();
  });

  it('reconciles the owner when an owned object changes or is deleted', async () => {
    const host = new FakeHost();
    const reconciled = await build(host, (builder) => builder.for(redisCluster).owns(statefulSet));
    const watch = host.sources.get('StatefulSet')!.currentWatch!;
    const child = owned('StatefulSet', 'cache-redis', { ...redisCluster, name: 'cache' });
    watch.send({ type: 'ADDED', object: child });
    await jest.advanceTimersByTimeAsync(0);
    watch.send({ type: 'DELETED', object: child });
    await jest.advanceTimersByTimeAsync(0);
    expect(reconciled).toEqual(['default/cache', 'default/cache']);
    await host.stop();
  });

  it('reconciles the keys a mapper returns for watched objects', async () => {
    const host = new FakeHost();
    const reconciled = await build(host, (builder) =>
      builder.for(redisCluster).watches({ apiVersion: 'v1', kind: 'Secret' }, (secret) => [{ namespace: secret.metadata!.namespace!, name: `for-${secret.metadata!.name}` }]),
    );
    host.sources.get('Secret')!.currentWatch!.send({ type: 'ADDED', object: configMap('password') });
    await jest.advanceTimersByTimeAsync(0);
    expect(reconciled).toEqual(['default/for-password']);
    await host.stop();
  });

  it('requires for() before complete()', () => {
    expect(() => new ControllerBuilder(new FakeHost(), 'x').complete(async () => undefined)).toThrow(/for\(\)/);
  });
});

describe('onlyStatusChanged', () => {
  const base = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'a', namespace: 'n', resourceVersion: '1', generation: 1 }, spec: { size: 1 } };

  it('is true when only the status and the resourceVersion changed', () => {
    expect(onlyStatusChanged(base, { ...base, metadata: { ...base.metadata, resourceVersion: '2' }, status: { ready: true } } as never)).toBe(true);
  });

  it('is false when the spec changed', () => {
    expect(onlyStatusChanged(base, { ...base, spec: { size: 2 } } as never)).toBe(false);
  });

  it('is false when metadata such as finalizers or the deletion timestamp changed', () => {
    expect(onlyStatusChanged(base, { ...base, metadata: { ...base.metadata, finalizers: ['x'] } } as never)).toBe(false);
    expect(onlyStatusChanged(base, { ...base, metadata: { ...base.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } } as never)).toBe(false);
  });
});
