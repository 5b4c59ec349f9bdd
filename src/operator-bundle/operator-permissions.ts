import { REDIS_CLUSTER_GROUP, REDIS_CLUSTER_PLURAL } from '../api/api-group';

/** One RBAC rule: explicit groups, resources and verbs; wildcards are never used. */
export interface PermissionRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
}

const READ = ['get', 'list', 'watch'];
/** Children are applied with server-side apply (create + patch) and garbage-collected through owner references. */
const APPLY = [...READ, 'create', 'patch'];

/**
 * What the controller does in the namespaces it watches, and nothing more:
 * - RedisClusters: read, add/remove its finalizer (merge patch), patch status; `finalizers` lets it set
 *   blockOwnerDeletion on children when the OwnerReferencesPermissionEnforcement admission plugin is on;
 * - the children it applies with server-side apply (StatefulSets, Services, ConfigMaps, PDBs);
 * - Secrets: read (user passwords), create the generated one (never updated: an existing Secret is kept);
 * - pods: read, move the role label (patch), delete one at a time during rolling restarts;
 * - PersistentVolumeClaims: list and delete them on cluster deletion when `storage.reclaimPolicy` is Delete;
 * - Events: record what it did (create, and patch to aggregate repeats).
 */
export const WATCHED_NAMESPACE_RULES: readonly PermissionRule[] = [
  { apiGroups: [REDIS_CLUSTER_GROUP], resources: [REDIS_CLUSTER_PLURAL], verbs: [...READ, 'patch'] },
  { apiGroups: [REDIS_CLUSTER_GROUP], resources: [`${REDIS_CLUSTER_PLURAL}/status`], verbs: ['patch'] },
  { apiGroups: [REDIS_CLUSTER_GROUP], resources: [`${REDIS_CLUSTER_PLURAL}/finalizers`], verbs: ['update'] },
  { apiGroups: ['apps'], resources: ['statefulsets'], verbs: APPLY },
  { apiGroups: [''], resources: ['services', 'configmaps'], verbs: APPLY },
  { apiGroups: ['policy'], resources: ['poddisruptionbudgets'], verbs: APPLY },
  // By name only: the controller reads the password Secret a cluster names and creates the one it generates, but can
  // neither list nor watch Secrets, so it cannot enumerate the cluster's Secrets.
  { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'create'] },
  { apiGroups: [''], resources: ['pods'], verbs: [...READ, 'patch', 'delete'] },
  { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: ['list', 'delete'] },
  { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
];

/** Leader election, in the operator's own namespace only. */
export const LEADER_ELECTION_RULES: readonly PermissionRule[] = [
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] },
  { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
];
