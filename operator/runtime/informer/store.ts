import {
  KubernetesObject,
  ObjectKey,
  objectKeyOf,
  objectKeyToString,
  withoutManagedFields,
} from '../kubernetes-object';
import type { WatcherEvent } from './watcher';

/**
 * The read side of an informer's cache. Many readers (reconcilers, mappers) share it; only the informer writes.
 * Returned objects are shared, not copies: treat them as immutable.
 */
export interface ObjectStore<T extends KubernetesObject> {
  get(key: ObjectKey): T | undefined;
  list(): T[];
  keys(): ObjectKey[];
  readonly size: number;
  /** True once the first full list has been applied. */
  hasSynced(): boolean;
}

/** Typed change notifications, computed by the store from watcher events. */
export interface StoreChangeHandlers<T extends KubernetesObject> {
  onAdd?(object: T): void;
  onUpdate?(oldObject: T, newObject: T): void;
  /** Also called for objects that disappeared while no watch was running (detected at relist). */
  onDelete?(object: T): void;
}

/**
 * The single writer of an {@link ObjectStore} (kube-rs' reflector `Writer`): applies {@link WatcherEvent}s, strips
 * `managedFields`, and reports adds, updates and deletes — including synthetic deletes for objects missing from a
 * relist.
 */
export class StoreWriter<T extends KubernetesObject> implements ObjectStore<T> {
  private objects = new Map<string, T>();
  private relistBuffer: Map<string, T> | undefined;
  private synced = false;

  constructor(private readonly handlers: StoreChangeHandlers<T>) {}

  /** The read-only view to hand to readers. */
  asReader(): ObjectStore<T> {
    return new StoreReader(this);
  }

  get(key: ObjectKey): T | undefined {
    return this.objects.get(objectKeyToString(key));
  }

  list(): T[] {
    return [...this.objects.values()];
  }

  keys(): ObjectKey[] {
    return [...this.objects.values()].map(objectKeyOf);
  }

  get size(): number {
    return this.objects.size;
  }

  hasSynced(): boolean {
    return this.synced;
  }

  apply(event: WatcherEvent<T>): void {
    switch (event.type) {
      case 'init':
        this.relistBuffer = new Map();
        return;
      case 'initApply': {
        const object = withoutManagedFields(event.object);
        (this.relistBuffer ??= new Map()).set(keyOf(object), object);
        return;
      }
      case 'initDone':
        this.finishRelist();
        return;
      case 'apply':
        this.upsert(withoutManagedFields(event.object));
        return;
      case 'delete': {
        const key = keyOf(event.object);
        const known = this.objects.get(key);
        this.objects.delete(key);
        this.handlers.onDelete?.(known ?? withoutManagedFields(event.object));
        return;
      }
    }
  }

  private upsert(object: T): void {
    const key = keyOf(object);
    const known = this.objects.get(key);
    this.objects.set(key, object);
    if (known === undefined) this.handlers.onAdd?.(object);
    else this.handlers.onUpdate?.(known, object);
  }

  private finishRelist(): void {
    const fresh = this.relistBuffer ?? new Map<string, T>();
    const previous = this.objects;
    this.relistBuffer = undefined;
    // Swap first, so handlers that read the store see the relisted state.
    this.objects = fresh;
    this.synced = true;
    for (const [key, object] of fresh) {
      const known = previous.get(key);
      if (known === undefined) this.handlers.onAdd?.(object);
      // Unchanged objects are not reported: a relist after a 410 must not look like a storm of updates (client-node
      // #2424). Periodic resync is the controller's job, not the cache's.
      else if (known.metadata?.resourceVersion !== object.metadata?.resourceVersion) this.handlers.onUpdate?.(known, object);
    }
    for (const [key, object] of previous) {
      if (!fresh.has(key)) this.handlers.onDelete?.(object);
    }
  }
}

function keyOf(object: KubernetesObject): string {
  return objectKeyToString(objectKeyOf(object));
}

/** Hides the writer's `apply` from readers. */
class StoreReader<T extends KubernetesObject> implements ObjectStore<T> {
  constructor(private readonly store: ObjectStore<T>) {}

  get(key: ObjectKey): T | undefined {
    return this.store.get(key);
  }

  list(): T[] {
    return this.store.list();
  }

  keys(): ObjectKey[] {
    return this.store.keys();
  }

  get size(): number {
    return this.store.size;
  }

  hasSynced(): boolean {
    return this.store.hasSynced();
  }
}
