import { REDIS_CLUSTER_GVK, type RedisClusterObject, type SecretObject } from './cluster-object';

/** Keys of the clusters that own `secret` or name it as their password Secret. */
export function clustersUsingSecret(clusters: readonly RedisClusterObject[], secret: SecretObject): Array<{ namespace: string; name: string }> {
  const namespace = secret.metadata.namespace;
  if (!namespace) return [];
  const owners = (secret.metadata.ownerReferences ?? []).filter((owner) => owner.controller && owner.kind === REDIS_CLUSTER_GVK.kind).map((owner) => owner.name);
  const naming = clusters
    .filter((cluster) => cluster.metadata.namespace === namespace && cluster.spec?.auth?.passwordSecretName === secret.metadata.name)
    .map((cluster) => cluster.metadata.name!);
  return [...new Set([...owners, ...naming])].map((name) => ({ namespace, name }));
}
