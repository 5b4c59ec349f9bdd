import type { GroupVersionKind } from '../kubernetes-object';

/** Names one object: kind, namespace (omit for cluster-scoped kinds) and name. */
export interface ObjectReference extends GroupVersionKind {
  readonly namespace?: string;
  readonly name: string;
}
