import type { Logger } from 'pino';
import type { Clock } from './clock';
import { Controller } from './controller';
import type { Informer } from './informer/informer';
import {
  GroupVersionKind,
  KubernetesObject,
  ObjectKey,
  objectKeyOf,
  referencesKind,
} from './kubernetes-object';
import type { RuntimeMetrics } from './metrics/runtime-metrics';
import type { Reconciler } from './reconciler';
import type { RateLimiter } from './workqueue/rate-limiter';

/** A kind to watch, optionally narrowed by selectors. */
export interface WatchedKind extends GroupVersionKind {
  /** @default everything */
  readonly labelSelector?: string;
  /** @default everything */
  readonly fieldSelector?: string;
}

/** What a builder needs from its manager (kept narrow so the builder can be tested with fakes). */
export interface ControllerHost {
  readonly logger: Logger;
  readonly metrics?: RuntimeMetrics;
  readonly clock?: Clock;
  /** A shared informer for `kind` (one per kind and selectors, whatever the number of controllers using it). */
  getInformer<T extends KubernetesObject>(kind: WatchedKind): Informer<T>;
  /** Registers the controller so the host starts it (when leading) and stops it. */
  addController(controller: Controller, informers: ReadonlyArray<Informer<KubernetesObject>>): void;
}

/** Options of {@link ControllerBuilder.withOptions}. */
export interface ControllerBuilderOptions {
  /** @default 4 */
  readonly maxConcurrentReconciles?: number;
  /** @default defaultControllerRateLimiter() */
  readonly rateLimiter?: RateLimiter;
  /** @default 36000000 (10 hours) */
  readonly resyncPeriodMs?: number;
}

/**
 * Declares what a controller reconciles and which events trigger it (controller-runtime's builder):
 *
 * ```ts
 * manager.controller('rediscluster')
 *   .for({ apiVersion: 'redkite.io/v1alpha1', kind: 'RedisCluster' })
 *   .owns({ apiVersion: 'apps/v1', kind: 'StatefulSet' })
 *   .complete(reconcile);
 * ```
 */
export class ControllerBuilder {
  private primary: WatchedKind | undefined;
  private readonly owned: WatchedKind[] = [];
  private readonly mapped: Array<{ kind: WatchedKind; mapToKeys: (object: KubernetesObject) => ObjectKey[] }> = [];
  private options: ControllerBuilderOptions = {};

  constructor(
    private readonly host: ControllerHost,
    private readonly name: string,
  ) {}

  /**
   * The kind this controller reconciles: each of its events enqueues the object's own key, except updates that
   * change nothing but `.status` (the controller's own status writes; controller-runtime users get the same from
   * predicates), which would otherwise make every status write trigger another reconcile.
   */
  for(kind: WatchedKind): this {
    if (this.primary) throw new Error(`controller ${this.name}: for() may be called once`);
    this.primary = kind;
    return this;
  }

  /**
   * A kind this controller creates: an event on such an object enqueues the owner named by its `controller: true`
   * ownerReference, when that owner is of the primary kind (matched by API group and kind, any version).
   */
  owns(kind: WatchedKind): this {
    this.owned.push(kind);
    return this;
  }

  /** Any other kind, mapped to the keys to reconcile. The mapper must be cheap and must not throw. */
  watches<T extends KubernetesObject>(kind: WatchedKind, mapToKeys: (object: T) => ObjectKey[]): this {
    this.mapped.push({ kind, mapToKeys: mapToKeys as (object: KubernetesObject) => ObjectKey[] });
    return this;
  }

  withOptions(options: ControllerBuilderOptions): this {
    this.options = { ...this.options, ...options };
    return this;
  }

  /** Builds the controller and registers it with the host. */
  complete(reconciler: Reconciler): Controller {
    const primary = this.primary;
    if (!primary) throw new Error(`controller ${this.name}: call for() before complete()`);
    const primaryInformer = this.host.getInformer<KubernetesObject>(primary);
    const controller = new Controller({
      name: this.name,
      reconciler,
      maxConcurrentReconciles: this.options.maxConcurrentReconciles,
      rateLimiter: this.options.rateLimiter,
      resyncPeriodMs: this.options.resyncPeriodMs,
      listKeysForResync: () => primaryInformer.store.keys(),
      clock: this.host.clock,
      logger: this.host.logger,
      metrics: this.host.metrics?.controllers,
      workQueueMetrics: this.host.metrics?.workQueues.forQueue(this.name),
    });
    const informers: Informer<KubernetesObject>[] = [primaryInformer];

    const enqueueSelf = (object: KubernetesObject): void => controller.enqueue(objectKeyOf(object));
    primaryInformer.addEventHandler({
      onAdd: enqueueSelf,
      onUpdate: (old, updated) => {
        if (!onlyStatusChanged(old, updated)) enqueueSelf(updated);
      },
      onDelete: enqueueSelf,
    });

    for (const kind of this.owned) {
      const informer = this.host.getInformer<KubernetesObject>(kind);
      const enqueueOwner = (object: KubernetesObject): void => {
        for (const key of controllerOwnerKeys(object, primary)) controller.enqueue(key);
      };
      informer.addEventHandler({
        onAdd: enqueueOwner,
        // Both: an object whose controller reference moved must wake the old owner and the new one.
        onUpdate: (old, updated) => {
          enqueueOwner(old);
          enqueueOwner(updated);
        },
        onDelete: enqueueOwner,
      });
      informers.push(informer);
    }

    for (const { kind, mapToKeys } of this.mapped) {
      const informer = this.host.getInformer<KubernetesObject>(kind);
      const enqueueMapped = (object: KubernetesObject): void => {
        for (const key of mapToKeys(object)) controller.enqueue(key);
      };
      informer.addEventHandler({
        onAdd: enqueueMapped,
        onUpdate: (old, updated) => {
          enqueueMapped(old);
          enqueueMapped(updated);
        },
        onDelete: enqueueMapped,
      });
      informers.push(informer);
    }

    this.host.addController(controller, informers);
    return controller;
  }
}

/**
 * The key of `object`'s controlling owner when that owner is of `ownerKind` (controller-runtime's
 * `EnqueueRequestForOwner` with `OnlyControllerOwner`). Owners live in the object's namespace: Kubernetes forbids
 * cross-namespace owner references.
 */
export function controllerOwnerKeys(object: KubernetesObject, ownerKind: GroupVersionKind): ObjectKey[] {
  const namespace = object.metadata?.namespace ?? '';
  return (object.metadata?.ownerReferences ?? [])
    .filter((reference) => reference.controller === true && referencesKind(reference, ownerKind))
    .map((reference) => ({ namespace, name: reference.name }));
}

/** True when two versions of an object differ only in `.status` and bookkeeping metadata. */
export function onlyStatusChanged(old: KubernetesObject, updated: KubernetesObject): boolean {
  const comparable = (object: KubernetesObject) => {
    const { status: _status, metadata, ...rest } = object as KubernetesObject & { status?: unknown };
    const { resourceVersion: _resourceVersion, managedFields: _managedFields, ...meta } = metadata;
    return JSON.stringify({ ...rest, metadata: meta });
  };
  return comparable(old) === comparable(updated);
}
