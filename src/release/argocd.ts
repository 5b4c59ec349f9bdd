/**
 * Argo CD annotations. Sync waves order the release: CRD (-2), then RBAC and the namespace (-1), then the
 * operator (0), then RedisClusters (1).
 */
export const SYNC_WAVE_ANNOTATION = 'argocd.argoproj.io/sync-wave';
export const SYNC_OPTIONS_ANNOTATION = 'argocd.argoproj.io/sync-options';

export const SyncWave = {
  CRD: -2,
  RBAC: -1,
  OPERATOR: 0,
  CLUSTERS: 1,
} as const;

export function syncWave(wave: number): Record<string, string> {
  return { [SYNC_WAVE_ANNOTATION]: String(wave) };
}

/** The CRD's schema is large: client-side apply would store it in an annotation, which has a 256 KiB limit. */
export const SERVER_SIDE_APPLY = { [SYNC_OPTIONS_ANNOTATION]: 'ServerSideApply=true' };

/** A RedisCluster may be dry-run before its CRD exists in a fresh cluster; Argo must not fail the sync for it. */
export const SKIP_DRY_RUN_ON_MISSING_RESOURCE = { [SYNC_OPTIONS_ANNOTATION]: 'SkipDryRunOnMissingResource=true' };
