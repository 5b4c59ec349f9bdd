/** The owner every object of a cluster points to, so Kubernetes garbage-collects them with the RedisCluster. */
export interface ClusterOwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
}

/** The ownerReferences entry for a controlling owner. */
export function controllerOwnerReference(owner: ClusterOwnerReference) {
  return { ...owner, controller: true, blockOwnerDeletion: true };
}
