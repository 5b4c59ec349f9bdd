import { clustersUsingSecret } from '../../../operator/rediscluster/secret-mapping';
import type { RedisClusterObject, SecretObject } from '../../../operator/rediscluster/cluster-object';

function cluster(namespace: string, name: string, passwordSecretName?: string): RedisClusterObject {
  return { apiVersion: 'redis.redkite.io/v1alpha1', kind: 'RedisCluster', metadata: { namespace, name }, spec: passwordSecretName ? { auth: { passwordSecretName } } : {} };
}

function secret(namespace: string, name: string, ownerCluster?: string): SecretObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      namespace,
      name,
      ownerReferences: ownerCluster ? [{ apiVersion: 'redis.redkite.io/v1alpha1', kind: 'RedisCluster', name: ownerCluster, uid: 'u', controller: true }] : undefined,
    },
  };
}

describe('clustersUsingSecret', () => {
  it('maps a generated Secret to the cluster that owns it', () => {
    expect(clustersUsingSecret([], secret('apps', 'cache-auth', 'cache'))).toEqual([{ namespace: 'apps', name: 'cache' }]);
  });

  it('maps a user Secret to every cluster in its namespace that names it', () => {
    const clusters = [cluster('apps', 'a', 'shared'), cluster('apps', 'b', 'shared'), cluster('other', 'c', 'shared'), cluster('apps', 'd')];
    expect(clustersUsingSecret(clusters, secret('apps', 'shared'))).toEqual([
      { namespace: 'apps', name: 'a' },
      { namespace: 'apps', name: 'b' },
    ]);
  });

  it('maps an unrelated Secret to nothing', () => {
    expect(clustersUsingSecret([cluster('apps', 'a', 'mine')], secret('apps', 'tls-cert'))).toEqual([]);
  });
});
