import type { KubernetesObject, OwnerReference } from '../../../../operator/runtime/kubernetes-object';

/** Builds a ConfigMap-like object; every field overridable. */
export function configMap(
  name: string,
  options: { namespace?: string; resourceVersion?: string; ownerReferences?: OwnerReference[]; data?: Record<string, string>; withManagedFields?: boolean } = {},
): KubernetesObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      namespace: options.namespace ?? 'default',
      resourceVersion: options.resourceVersion ?? '1',
      uid: `uid-${name}`,
      ownerReferences: options.ownerReferences,
      managedFields: options.withManagedFields ? [{ manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:data': {} } }] : undefined,
    },
    data: options.data ?? {},
  };
}

/** A controller ownerReference to an object of `apiVersion`/`kind`. */
export function controllerReference(apiVersion: string, kind: string, name: string): OwnerReference {
  return { apiVersion, kind, name, uid: `uid-${name}`, controller: true, blockOwnerDeletion: true };
}
