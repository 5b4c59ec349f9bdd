/**
 * The RedisCluster's scale subresource (`kubectl scale`, HorizontalPodAutoscaler): in one place, because the CRD
 * declares it and admission checks the paths it names (the apiserver requires them to hold integers).
 */
export const REDIS_CLUSTER_SCALE_SUBRESOURCE = {
  specReplicasPath: '.spec.replicas',
  statusReplicasPath: '.status.replicas',
  labelSelectorPath: '.status.selector',
} as const;
