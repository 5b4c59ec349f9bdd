import type { ApplyOptions, ListOptions, ObjectList } from '../../../../operator/runtime/client/kubernetes-client';
import type { ObjectReference } from '../../../../operator/runtime/client/object-reference';
import { KubernetesApiError, KubernetesTransportError } from '../../../../operator/runtime/errors';
import { objectKeyToString, type GroupVersionKind, type KubernetesObject, type ObjectKey } from '../../../../operator/runtime/kubernetes-object';
import type { CacheReader, ReconcilerClient } from '../../../../operator/rediscluster/reconciler';
import type { ApiCall, CallJournal } from './call-journal';
import { applyMergePatch, isPlainObject, overTheWire } from './json-merge-patch';

type Stored = KubernetesObject & { metadata: KubernetesObject['metadata'] & { resourceVersion: string } };

/** Called after the apiserver carried out a write, before the caller gets the answer. */
export type WriteHook = (call: ApiCall) => void;

/**
 * An in-memory apiserver behind the reconciler's client interfaces, with the semantics the reconciler relies on:
 *
 * - every accepted write gives the object a new, larger `resourceVersion` (one counter, like etcd's revision);
 * - a merge patch carrying `metadata.resourceVersion`, or `patchStatus` with `resourceVersion`, is refused with the
 *   client's own {@link KubernetesApiError} 409 (what `isConflict` recognises) when the object moved on since;
 * - the main resource ignores `status`, the status subresource ignores everything else;
 * - a delete of an object with finalizers only sets `deletionTimestamp`; removing the last finalizer then deletes it;
 * - a request whose signal is already aborted is never carried out (like an aborted `http.request`).
 *
 * The caches it hands out read the same objects, unless the watch is stalled ({@link stallWatch}): then they keep
 * showing what they showed at that moment while writes still reach the store — a lagging informer.
 *
 * Test setup goes through {@link put}, {@link update} and {@link read}, which the journal does not record.
 */
export class FakeKubernetes implements ReconcilerClient {
  private readonly objects = new Map<string, Stored>();
  private stalled: Map<string, Stored> | undefined;
  private revision = 1000;
  private uids = 0;
  /** Runs after each accepted write; tests use it to act "while the reconcile is under way". */
  onWrite: WriteHook | undefined;

  constructor(
    private readonly journal: CallJournal,
    private readonly wallClock: () => number,
  ) {}

  // ---- test-side access, not journaled ----

  /** Creates or replaces an object, giving it a resourceVersion (and a uid when it has none). */
  put<T extends KubernetesObject>(object: T): T {
    const copy = overTheWire(object) as Stored;
    copy.metadata.uid ??= `uid-${++this.uids}`;
    copy.metadata.resourceVersion = this.nextRevision();
    copy.metadata.generation ??= 1;
    this.objects.set(storeKey(gvkOf(copy), copy.metadata.namespace, copy.metadata.name!), copy);
    return overTheWire(copy) as unknown as T;
  }

  /** Changes a stored object in place (a new resourceVersion), as another client would. */
  update<T extends KubernetesObject>(reference: ObjectReference, change: (object: T) => void): T {
    const stored = this.stored(reference);
    if (stored === undefined) throw new Error(`fake apiserver: no ${describe(reference)} to update`);
    const copy = overTheWire(stored) as unknown as T;
    change(copy);
    return this.put(copy);
  }

  read<T extends KubernetesObject>(reference: ObjectReference): T | undefined {
    const stored = this.stored(reference);
    return stored === undefined ? undefined : (overTheWire(stored) as unknown as T);
  }

  remove(reference: ObjectReference): void {
    this.objects.delete(storeKey(reference, reference.namespace, reference.name));
  }

  /** From now on the caches keep showing the objects as they are at this moment (a stalled watch). */
  stallWatch(): void {
    this.stalled = new Map([...this.objects].map(([key, object]) => [key, overTheWire(object)]));
  }

  resumeWatch(): void {
    this.stalled = undefined;
  }

  /** An informer cache of one kind. */
  cache<T extends KubernetesObject>(kind: GroupVersionKind): CacheReader<T> {
    const view = (): Map<string, Stored> => this.stalled ?? this.objects;
    return {
      store: {
        get: (key: ObjectKey) => {
          const object = view().get(storeKey(kind, key.namespace, key.name));
          return object === undefined ? undefined : (overTheWire(object) as unknown as T);
        },
        list: () => [...view().values()].filter((object) => sameKind(object, kind)).map((object) => overTheWire(object) as unknown as T),
      },
    };
  }

  // ---- ReconcilerClient ----

  async get<T extends KubernetesObject>(reference: ObjectReference, options: { signal?: AbortSignal } = {}): Promise<T> {
    const call = this.begin('get', reference, options.signal);
    const stored = this.stored(reference);
    if (stored === undefined) throw this.refuse(call, 404, 'NotFound', `${describe(reference)} not found`);
    return overTheWire(stored) as unknown as T;
  }

  async list<T extends KubernetesObject>(apiVersion: string, kind: string, options: ListOptions = {}): Promise<ObjectList<T>> {
    this.begin('list', { apiVersion, kind, namespace: options.namespace, name: '' }, options.signal);
    const selector = parseEqualitySelector(options.labelSelector);
    const items = [...this.objects.values()]
      .filter((object) => sameKind(object, { apiVersion, kind }))
      .filter((object) => options.namespace === undefined || object.metadata.namespace === options.namespace)
      .filter((object) => Object.entries(selector).every(([label, value]) => object.metadata.labels?.[label] === value))
      .map((object) => overTheWire(object) as unknown as T);
    return { items, resourceVersion: String(this.revision) };
  }

  async apply<T extends KubernetesObject>(object: T, options: ApplyOptions = {}): Promise<T> {
    const reference = referenceOf(object);
    const call = this.begin('apply', reference, options.signal, object);
    const applied = overTheWire(object) as Stored;
    delete (applied.metadata as Record<string, unknown>).resourceVersion;
    delete (applied.metadata as Record<string, unknown>).managedFields;
    const existing = this.stored(reference);
    if (existing === undefined) return this.accept(call, this.store({ ...applied, status: undefined } as unknown as Stored));
    // Server-side apply, simplified: the applier's top-level fields replace the stored ones, metadata merges, and
    // status (a subresource) is not touched.
    const { status: _ignored, metadata, ...fields } = applied;
    const merged = { ...existing, ...fields, metadata: { ...existing.metadata, ...metadata, labels: { ...existing.metadata.labels, ...metadata.labels } } };
    return this.accept(call, this.store(merged as Stored, existing));
  }

  async create<T extends KubernetesObject>(object: T, options: { signal?: AbortSignal } = {}): Promise<T> {
    const reference = referenceOf(object);
    const call = this.begin('create', reference, options.signal, object);
    if (this.stored(reference) !== undefined) throw this.refuse(call, 409, 'AlreadyExists', `${describe(reference)} already exists`);
    const created = overTheWire(object) as Stored;
    created.metadata.uid = `uid-${++this.uids}`;
    created.metadata.creationTimestamp = new Date(this.wallClock()).toISOString();
    return this.accept(call, this.store(created));
  }

  async mergePatch<T extends KubernetesObject>(reference: ObjectReference, patch: unknown, options: { signal?: AbortSignal } = {}): Promise<T> {
    const body = overTheWire(patch);
    const precondition = isPlainObject(body) && isPlainObject(body.metadata) && typeof body.metadata.resourceVersion === 'string' ? body.metadata.resourceVersion : undefined;
    const call = this.begin('mergePatch', reference, options.signal, body, precondition);
    const existing = this.requireCurrent(call, reference, precondition);
    const { status: _ignored, ...withoutStatus } = isPlainObject(body) ? body : {};
    const patched = applyMergePatch(existing, withoutStatus) as Stored;
    patched.status = existing.status;
    return this.accept(call, this.store(patched, existing));
  }

  async patchStatus<T extends KubernetesObject>(
    reference: ObjectReference,
    status: Record<string, unknown>,
    options: { resourceVersion?: string; signal?: AbortSignal } = {},
  ): Promise<T> {
    const body = overTheWire(status);
    const call = this.begin('patchStatus', reference, options.signal, body, options.resourceVersion);
    const existing = this.requireCurrent(call, reference, options.resourceVersion);
    const patched = { ...existing, status: applyMergePatch(existing.status, body) } as Stored;
    return this.accept(call, this.store(patched, existing));
  }

  async delete(reference: ObjectReference, options: { signal?: AbortSignal } = {}): Promise<void> {
    const call = this.begin('delete', reference, options.signal);
    const existing = this.stored(reference);
    if (existing === undefined) throw this.refuse(call, 404, 'NotFound', `${describe(reference)} not found`);
    if ((existing.metadata.finalizers ?? []).length > 0) {
      this.store({ ...existing, metadata: { ...existing.metadata, deletionTimestamp: new Date(this.wallClock()).toISOString() } } as Stored, existing);
    } else {
      this.objects.delete(storeKey(reference, reference.namespace, reference.name));
    }
    this.accept(call, existing);
  }

  // ---- internals ----

  private begin(verb: ApiCall['verb'], reference: ObjectReference, signal: AbortSignal | undefined, body?: unknown, precondition?: string): ApiCall {
    const call = this.journal.record<ApiCall>({
      system: 'api',
      verb,
      apiVersion: reference.apiVersion,
      kind: reference.kind,
      namespace: reference.namespace,
      name: reference.name || undefined,
      body: overTheWire(body),
      precondition,
      outcome: 'ok',
    });
    if (signal?.aborted) {
      call.outcome = 'aborted';
      throw new KubernetesTransportError(verb.toUpperCase(), describe(reference), { cause: signal.reason ?? new Error('aborted') });
    }
    return call;
  }

  private requireCurrent(call: ApiCall, reference: ObjectReference, precondition: string | undefined): Stored {
    const existing = this.stored(reference);
    if (existing === undefined) throw this.refuse(call, 404, 'NotFound', `${describe(reference)} not found`);
    if (precondition !== undefined && precondition !== existing.metadata.resourceVersion) {
      throw this.refuse(
        call,
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${reference.kind} "${reference.name}": the object has been modified; please apply your changes to the latest version and try again`,
      );
    }
    return existing;
  }

  private refuse(call: ApiCall, code: 404 | 409, reason: string, message: string): KubernetesApiError {
    call.outcome = code;
    return new KubernetesApiError(call.verb.toUpperCase(), describe(call), code, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason, code, message });
  }

  /** Stores a new version of an object: a new resourceVersion, generation + 1 when its spec changed. */
  private store(object: Stored, previous?: Stored): Stored {
    const copy = overTheWire(object);
    delete (copy.metadata as Record<string, unknown>).resourceVersion;
    copy.metadata.resourceVersion = this.nextRevision();
    const specChanged = previous !== undefined && JSON.stringify(previous.spec) !== JSON.stringify(copy.spec);
    copy.metadata.generation = previous === undefined ? 1 : (previous.metadata.generation ?? 1) + (specChanged ? 1 : 0);
    const key = storeKey(gvkOf(copy), copy.metadata.namespace, copy.metadata.name!);
    // An object being deleted goes once its last finalizer does.
    if (copy.metadata.deletionTimestamp !== undefined && (copy.metadata.finalizers ?? []).length === 0) this.objects.delete(key);
    else this.objects.set(key, copy);
    return copy;
  }

  private accept<T>(call: ApiCall, stored: Stored): T {
    this.onWrite?.(call);
    return overTheWire(stored) as unknown as T;
  }

  private stored(reference: ObjectReference): Stored | undefined {
    return this.objects.get(storeKey(reference, reference.namespace, reference.name));
  }

  private nextRevision(): string {
    this.revision += 1;
    return String(this.revision);
  }
}

function storeKey(kind: GroupVersionKind, namespace: string | undefined, name: string): string {
  return `${kind.apiVersion}/${kind.kind}/${objectKeyToString({ namespace: namespace ?? '', name })}`;
}

function gvkOf(object: KubernetesObject): GroupVersionKind {
  if (!object.apiVersion || !object.kind) throw new Error(`fake apiserver: object without apiVersion/kind: ${JSON.stringify(object).slice(0, 200)}`);
  return { apiVersion: object.apiVersion, kind: object.kind };
}

function sameKind(object: KubernetesObject, kind: GroupVersionKind): boolean {
  return object.apiVersion === kind.apiVersion && object.kind === kind.kind;
}

function referenceOf(object: KubernetesObject): ObjectReference {
  return { ...gvkOf(object), namespace: object.metadata.namespace, name: object.metadata.name! };
}

function describe(reference: { kind: string; namespace?: string; name?: string }): string {
  return `${reference.kind} ${reference.namespace ?? ''}/${reference.name ?? ''}`;
}

/** `a=b,c=d`; the reconciler uses nothing else, and anything else is a mistake in the fake's use. */
function parseEqualitySelector(selector: string | undefined): Record<string, string> {
  if (selector === undefined || selector === '') return {};
  return Object.fromEntries(
    selector.split(',').map((term) => {
      const match = /^([^=!]+)=([^=]*)$/.exec(term);
      if (!match) throw new Error(`fake apiserver: only equality label selectors are supported, got "${term}"`);
      return [match[1]!, match[2]!];
    }),
  );
}
