import { REDIS_CLUSTER_GROUP, REDIS_CLUSTER_PLURAL } from '../api/api-group';

/** One RBAC rule: explicit groups, resources and verbs; wildcards are never used. */
export interface PermissionRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
}

const READ = ['get', 'list', 'watch'];
const MANAGE = [...READ, 'create', 'update', 'patch', 'delete'];

/**
 * What the controller does in the namespaces it watches, and nothing more:
 * - RedisClusters: read, add/remove its finalizer (patch), write status; `finalizers` lets it set
 *   blockOwnerDeletion on children when OwnerReferencesPermissionEnforcement is on;
 * - the children it applies with server-side apply (StatefulSets, Services, ConfigMaps, PDBs, Secrets);
 * - pods: read, move the role label (patch), delete one at a time during rolling restarts;
 * - PersistentVolumeClaims: read, delete per `storage.reclaimPolicy`;
 * - Events: record what it did.
 */
export const WATCHED_NAMESPACE_RULES: readonly PermissionRule[] = [
  { apiGroups: [REDIS_CLUSTER_GROUP], resources: [REDIS_CLUSTER_PLURAL], verbs: [...READ, 'update', 'patch'] },
  { apiGroups: [REDIS_CLUSTER_GROUP], resources: [`${REDIS_CLUSTER_PLURAL}/status`], verbs: ['get', 'update', 'patch'] },
  { apiGroups: [REDIS_CLUSTER_GROUP], resources: [`${REDIS_CLUSTER_PLURAL}/finalizers`], verbs: ['update'] },
  { apiGroups: ['apps'], resources: ['statefulsets'], verbs: MANAGE },
  { apiGroups: [''], resources: ['services', 'configmaps', 'secrets'], verbs: MANAGE },
  { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: MANAGE },
  { apiGroups: [''], resources: ['pods'], verbs: [...READ, 'patch', 'delete'] },
  { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: [...READ, 'delete'] },
  { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
];

/** Leader election, in the operator's own namespace only. */
export const LEADER_ELECTION_RULES: readonly PermissionRule[] = [
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] },
  { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
];
