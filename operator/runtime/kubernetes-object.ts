/**
 * The minimal shape of a Kubernetes object the runtime relies on. Kept local (instead of client-node's model
 * classes) because the runtime stores and passes the raw JSON the apiserver sends.
 */
export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
  readonly blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  deletionTimestamp?: string;
  creationTimestamp?: string;
  managedFields?: unknown[];
  [field: string]: unknown;
}

/** Every object the apiserver returns has metadata, so it is required here (unlike client-node's type). */
export interface KubernetesObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/** Which kind of object: `{ apiVersion: 'apps/v1', kind: 'StatefulSet' }`. */
export interface GroupVersionKind {
  readonly apiVersion: string;
  readonly kind: string;
}

/** A namespace/name pair: the only thing a reconcile request carries. `namespace` is `''` for cluster-scoped objects. */
export interface ObjectKey {
  readonly namespace: string;
  readonly name: string;
}

/** `'ns/name'`, or `'name'` for cluster-scoped objects (client-go's MetaNamespaceKeyFunc). */
export function objectKeyToString(key: ObjectKey): string {
  return key.namespace ? `${key.namespace}/${key.name}` : key.name;
}

export function objectKeyFromString(text: string): ObjectKey {
  const slash = text.indexOf('/');
  return slash < 0 ? { namespace: '', name: text } : { namespace: text.slice(0, slash), name: text.slice(slash + 1) };
}

export function objectKeyOf(object: KubernetesObject): ObjectKey {
  return { namespace: object.metadata?.namespace ?? '', name: object.metadata?.name ?? '' };
}

/** The API group of an apiVersion: `'apps/v1'` → `'apps'`, `'v1'` → `''` (core). */
export function apiGroupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** Whether an ownerReference points at `owner`'s kind; versions are ignored, like controller-runtime does. */
export function referencesKind(reference: OwnerReference, owner: GroupVersionKind): boolean {
  return reference.kind === owner.kind && apiGroupOf(reference.apiVersion) === apiGroupOf(owner.apiVersion);
}

/** A copy of `object` without `metadata.managedFields`, which are ~half of a typical object's size and never read. */
export function withoutManagedFields<T extends KubernetesObject>(object: T): T {
  if (!object.metadata || object.metadata.managedFields === undefined) return object;
  const { managedFields: _dropped, ...metadata } = object.metadata;
  return { ...object, metadata };
}
