import { StoreWriter } from '../../../../operator/runtime/informer/store';
import type { KubernetesObject } from '../../../../operator/runtime/kubernetes-object';
import { configMap } from '../support/objects';

function storeWithLog() {
  const log: string[] = [];
  const store = new StoreWriter<KubernetesObject>({
    onAdd: (object) => log.push(`add ${object.metadata?.name}`),
    onUpdate: (_old, object) => log.push(`update ${object.metadata?.name}`),
    onDelete: (object) => log.push(`delete ${object.metadata?.name}`),
  });
  return { store, log };
}

describe('StoreWriter', () => {
  it('makes a relist visible all at once, at initDone', () => {
    const { store } = storeWithLog();
    store.apply({ type: 'init' });
    store.apply({ type: 'initApply', object: configMap('a') });
    expect(store.size).toBe(0);
    expect(store.hasSynced()).toBe(false);
    store.apply({ type: 'initDone' });
    expect(store.size).toBe(1);
    expect(store.hasSynced()).toBe(true);
  });

  it('keeps serving the previous content while a relist is in progress', () => {
    const { store } = storeWithLog();
    store.apply({ type: 'init' });
    store.apply({ type: 'initApply', object: configMap('a') });
    store.apply({ type: 'initDone' });
    store.apply({ type: 'init' });
    expect(store.get({ namespace: 'default', name: 'a' })).toBeDefined();
    expect(store.hasSynced()).toBe(true);
  });

  it('reports a synthetic delete for an object missing from a relist, and no update for unchanged ones', () => {
    const { store, log } = storeWithLog();
    store.apply({ type: 'init' });
    store.apply({ type: 'initApply', object: configMap('a') });
    store.apply({ type: 'initApply', object: configMap('b') });
    store.apply({ type: 'initDone' });
    log.length = 0;
    store.apply({ type: 'init' });
    store.apply({ type: 'initApply', object: configMap('a') });
    store.apply({ type: 'initDone' });
    expect(log).toEqual(['delete b']);
  });

  it('hands delete handlers the last known object when the event carries less', () => {
    const deleted: KubernetesObject[] = [];
    const store = new StoreWriter<KubernetesObject>({ onDelete: (object) => deleted.push(object) });
    store.apply({ type: 'apply', object: configMap('a', { data: { k: 'v' } }) });
    store.apply({ type: 'delete', object: { metadata: { name: 'a', namespace: 'default' } } });
    expect(deleted[0].data).toEqual({ k: 'v' });
  });

  it('gives readers a view without the write side', () => {
    const { store } = storeWithLog();
    store.apply({ type: 'apply', object: configMap('a') });
    const reader = store.asReader();
    expect(reader.size).toBe(1);
    expect(reader.keys()).toEqual([{ namespace: 'default', name: 'a' }]);
    expect(reader).not.toHaveProperty('apply');
  });
});
