import type { KubernetesObject } from '../kubernetes-object';
import type { ObjectReference } from './object-reference';
import { ResourceResolver } from './resource-resolver';
import { KubernetesRestClient, PatchContentType } from './rest-client';

/** Options of {@link KubernetesClient.list}. */
export interface ListOptions {
  /** Omit for all namespaces (or a cluster-scoped kind). */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Page size; omit for the whole list in one answer. */
  readonly limit?: number;
  readonly continueToken?: string;
  readonly signal?: AbortSignal;
}

/** A list answer with its resourceVersion and paging token. */
export interface ObjectList<T extends KubernetesObject> {
  readonly items: T[];
  readonly resourceVersion: string;
  readonly continueToken?: string;
}

/** Options of {@link KubernetesClient.apply}. */
export interface ApplyOptions {
  /**
   * Owner of the applied fields.
   * @default 'redkite'
   */
  readonly fieldManager?: string;
  /**
   * Take over fields another manager owns (a controller is the source of truth for what it applies).
   * @default true
   */
  readonly force?: boolean;
  readonly signal?: AbortSignal;
}

/** Reads objects straight from the API server (reconcilers normally read the informer cache instead). */
export interface ObjectReader {
  get<T extends KubernetesObject>(reference: ObjectReference, options?: { signal?: AbortSignal }): Promise<T>;
  list<T extends KubernetesObject>(apiVersion: string, kind: string, options?: ListOptions): Promise<ObjectList<T>>;
}

/** Writes objects. */
export interface ObjectWriter {
  apply<T extends KubernetesObject>(object: T, options?: ApplyOptions): Promise<T>;
  create<T extends KubernetesObject>(object: T, options?: { signal?: AbortSignal }): Promise<T>;
  mergePatch<T extends KubernetesObject>(reference: ObjectReference, patch: unknown, options?: { signal?: AbortSignal }): Promise<T>;
  delete(reference: ObjectReference, options?: { signal?: AbortSignal; propagationPolicy?: 'Foreground' | 'Background' | 'Orphan' }): Promise<void>;
}

/** Writes the status subresource only (controller-runtime's `StatusWriter`). */
export interface StatusWriter {
  /**
   * JSON merge patch of `.status` through the status subresource. Pass `resourceVersion` to fail with 409 when the
   * object changed since it was read.
   */
  patchStatus<T extends KubernetesObject>(
    reference: ObjectReference,
    status: Record<string, unknown>,
    options?: { resourceVersion?: string; signal?: AbortSignal },
  ): Promise<T>;
}

/** Options of {@link KubernetesClient}. */
export interface KubernetesClientOptions {
  /**
   * Default field manager of {@link KubernetesClient.apply}.
   * @default 'redkite'
   */
  readonly fieldManager?: string;
}

/** A generic client for any kind, built-in or custom, working on raw JSON objects. */
export class KubernetesClient implements ObjectReader, ObjectWriter, StatusWriter {
  public readonly resources: ResourceResolver;
  private readonly fieldManager: string;

  constructor(
    public readonly rest: KubernetesRestClient,
    options: KubernetesClientOptions = {},
  ) {
    this.resources = new ResourceResolver(rest);
    this.fieldManager = options.fieldManager ?? 'redkite';
  }

  async get<T extends KubernetesObject>(reference: ObjectReference, options: { signal?: AbortSignal } = {}): Promise<T> {
    const path = await this.resources.objectPath(reference.apiVersion, reference.kind, reference.namespace, reference.name);
    return this.rest.request<T>({ method: 'GET', path, signal: options.signal });
  }

  async list<T extends KubernetesObject>(apiVersion: string, kind: string, options: ListOptions = {}): Promise<ObjectList<T>> {
    const path = await this.resources.collectionPath(apiVersion, kind, options.namespace);
    const answer = await this.rest.request<{ items?: T[]; metadata?: { resourceVersion?: string; continue?: string } }>({
      method: 'GET',
      path,
      query: {
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
        limit: options.limit,
        continue: options.continueToken,
      },
      signal: options.signal,
    });
    // List items carry no apiVersion/kind; restore them so handlers and mappers can rely on them.
    const items = (answer.items ?? []).map((item) => ({ ...item, apiVersion, kind }));
    return {
      items,
      resourceVersion: answer.metadata?.resourceVersion ?? '',
      continueToken: answer.metadata?.continue || undefined,
    };
  }

  /**
   * Server-side apply (`application/apply-patch+yaml`; JSON is valid YAML). Applying an unchanged object is a
   * no-op on the server: the resourceVersion does not move.
   */
  async apply<T extends KubernetesObject>(object: T, options: ApplyOptions = {}): Promise<T> {
    const reference = referenceOf(object);
    const path = await this.resources.objectPath(reference.apiVersion, reference.kind, reference.namespace, reference.name);
    // The apiserver rejects an apply body that carries managedFields; a resourceVersion would turn the apply
    // into a conditional update, which callers ask for explicitly if they want it.
    const body = withoutServerFields(object);
    return this.rest.request<T>({
      method: 'PATCH',
      path,
      query: { fieldManager: options.fieldManager ?? this.fieldManager, force: options.force ?? true },
      body,
      contentType: PatchContentType.serverSideApply,
      signal: options.signal,
    });
  }

  async create<T extends KubernetesObject>(object: T, options: { signal?: AbortSignal } = {}): Promise<T> {
    const reference = referenceOf(object);
    const path = await this.resources.collectionPath(reference.apiVersion, reference.kind, reference.namespace);
    return this.rest.request<T>({ method: 'POST', path, body: object, query: { fieldManager: this.fieldManager }, signal: options.signal });
  }

  async mergePatch<T extends KubernetesObject>(reference: ObjectReference, patch: unknown, options: { signal?: AbortSignal } = {}): Promise<T> {
    const path = await this.resources.objectPath(reference.apiVersion, reference.kind, reference.namespace, reference.name);
    return this.rest.request<T>({
      method: 'PATCH',
      path,
      body: patch,
      contentType: PatchContentType.mergePatch,
      query: { fieldManager: this.fieldManager },
      signal: options.signal,
    });
  }

  async patchStatus<T extends KubernetesObject>(
    reference: ObjectReference,
    status: Record<string, unknown>,
    options: { resourceVersion?: string; signal?: AbortSignal } = {},
  ): Promise<T> {
    const path = await this.resources.objectPath(reference.apiVersion, reference.kind, reference.namespace, reference.name, 'status');
    const body = options.resourceVersion === undefined ? { status } : { metadata: { resourceVersion: options.resourceVersion }, status };
    return this.rest.request<T>({
      method: 'PATCH',
      path,
      body,
      contentType: PatchContentType.mergePatch,
      query: { fieldManager: this.fieldManager },
      signal: options.signal,
    });
  }

  async delete(
    reference: ObjectReference,
    options: { signal?: AbortSignal; propagationPolicy?: 'Foreground' | 'Background' | 'Orphan' } = {},
  ): Promise<void> {
    const path = await this.resources.objectPath(reference.apiVersion, reference.kind, reference.namespace, reference.name);
    await this.rest.request<unknown>({
      method: 'DELETE',
      path,
      body: options.propagationPolicy ? { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: options.propagationPolicy } : undefined,
      signal: options.signal,
    });
  }
}

/** The reference of a full object; throws when it lacks what a request needs. */
export function referenceOf(object: KubernetesObject): ObjectReference {
  const { apiVersion, kind } = object;
  const name = object.metadata?.name;
  if (!apiVersion || !kind || !name) {
    throw new TypeError(`object needs apiVersion, kind and metadata.name: ${JSON.stringify(object).slice(0, 200)}`);
  }
  return { apiVersion, kind, name, namespace: object.metadata?.namespace };
}

function withoutServerFields<T extends KubernetesObject>(object: T): T {
  if (!object.metadata) return object;
  const { managedFields: _managedFields, resourceVersion: _resourceVersion, ...metadata } = object.metadata;
  return { ...object, metadata };
}
