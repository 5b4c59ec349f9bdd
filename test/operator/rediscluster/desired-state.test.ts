import { desiredState } from '../../../operator/rediscluster/desired-state';
import type { RedisClusterObject } from '../../../operator/rediscluster/cluster-object';
import { REDIS_CLUSTER_API_VERSION, REDIS_CLUSTER_KIND, resolveSpec, type RedisClusterSpec } from '../../../src/api';
import { synthesizeRedisClusterWorkload, type KubernetesManifest } from '../../../src/workload/synthesize-workload';

const UID = '0f1e2d3c-0000-4000-8000-000000000001';

/** A RedisCluster as the controller reads it from the cache. */
function redisCluster(spec: RedisClusterSpec = { replicas: 3 }): RedisClusterObject {
  return {
    apiVersion: REDIS_CLUSTER_API_VERSION,
    kind: REDIS_CLUSTER_KIND,
    metadata: { name: 'cache', namespace: 'prod', uid: UID, generation: 1, resourceVersion: '42' },
    spec,
  };
}

function statefulSetOf(manifests: readonly KubernetesManifest[]): KubernetesManifest & { spec: { replicas: number } } {
  const statefulSet = manifests.find((manifest) => manifest.kind === 'StatefulSet');
  if (!statefulSet) throw new Error('no StatefulSet among the desired objects');
  return statefulSet as KubernetesManifest & { spec: { replicas: number } };
}

describe('desiredState', () => {
  it('produces the objects the workload construct synthesizes for the same cluster', () => {
    const spec: RedisClusterSpec = { replicas: 3, config: { 'maxmemory-policy': 'allkeys-lru' } };
    const synthesized = synthesizeRedisClusterWorkload({
      name: 'cache',
      namespace: 'prod',
      spec,
      owner: { apiVersion: REDIS_CLUSTER_API_VERSION, kind: REDIS_CLUSTER_KIND, name: 'cache', uid: UID },
    });
    expect(desiredState(redisCluster(spec)).manifests).toEqual(synthesized.manifests);
  });

  it('reports the live config parameters and password Secret name the construct chose', () => {
    const spec: RedisClusterSpec = { config: { 'maxmemory-policy': 'allkeys-lru' } };
    const synthesized = synthesizeRedisClusterWorkload({ name: 'cache', namespace: 'prod', spec });
    const desired = desiredState(redisCluster(spec));
    expect({ liveConfigParameters: desired.liveConfigParameters, passwordSecretName: desired.passwordSecretName }).toEqual({
      liveConfigParameters: synthesized.liveConfigParameters,
      passwordSecretName: synthesized.passwordSecretName,
    });
  });

  it('returns the spec with every default applied', () => {
    expect(desiredState(redisCluster({ replicas: 5 })).spec).toEqual(resolveSpec({ replicas: 5 }));
  });

  it('makes the RedisCluster the controlling owner of every object', () => {
    const owner = { apiVersion: REDIS_CLUSTER_API_VERSION, kind: REDIS_CLUSTER_KIND, name: 'cache', uid: UID, controller: true, blockOwnerDeletion: true };
    for (const manifest of desiredState(redisCluster()).manifests) {
      expect({ object: `${manifest.kind}/${manifest.metadata.name}`, ownerReferences: manifest.metadata.ownerReferences }).toEqual({
        object: `${manifest.kind}/${manifest.metadata.name}`,
        ownerReferences: [owner],
      });
    }
  });

  it("places every object in the cluster's namespace", () => {
    expect(new Set(desiredState(redisCluster()).manifests.map((manifest) => manifest.metadata.namespace))).toEqual(new Set(['prod']));
  });

  it("sets the StatefulSet's replicas from the spec without an override", () => {
    expect(statefulSetOf(desiredState(redisCluster({ replicas: 3 })).manifests).spec.replicas).toBe(3);
  });

  it("sets the StatefulSet's replicas from the override", () => {
    expect(statefulSetOf(desiredState(redisCluster({ replicas: 2 }), 3).manifests).spec.replicas).toBe(3);
  });

  it("changes nothing but the StatefulSet's replicas with an override", () => {
    const plain = desiredState(redisCluster({ replicas: 2 })).manifests;
    const overridden = desiredState(redisCluster({ replicas: 2 }), 3).manifests;
    const withoutStatefulSetReplicas = (manifests: readonly KubernetesManifest[]) =>
      manifests.map((manifest) => (manifest.kind === 'StatefulSet' ? { ...manifest, spec: { ...statefulSetOf([manifest]).spec, replicas: 'ignored' } } : manifest));
    expect(withoutStatefulSetReplicas(overridden)).toEqual(withoutStatefulSetReplicas(plain));
  });

  it('keeps the desired replica count in the returned spec with an override', () => {
    expect(desiredState(redisCluster({ replicas: 2 }), 3).spec.replicas).toBe(2);
  });

  it('generates the password Secret when the spec names none', () => {
    expect(desiredState(redisCluster({})).generatesPasswordSecret).toBe(true);
  });

  it('names the generated password Secret after the cluster', () => {
    expect(desiredState(redisCluster({})).passwordSecretName).toBe('cache-auth');
  });

  it('does not generate the password Secret when the spec names one', () => {
    expect(desiredState(redisCluster({ auth: { passwordSecretName: 'team-redis-password' } })).generatesPasswordSecret).toBe(false);
  });

  it("uses the user's password Secret when the spec names one", () => {
    expect(desiredState(redisCluster({ auth: { passwordSecretName: 'team-redis-password' } })).passwordSecretName).toBe('team-redis-password');
  });

  it('resolves an absent spec to every default', () => {
    const cluster = { ...redisCluster(), spec: undefined };
    expect(desiredState(cluster).spec).toEqual(resolveSpec({}));
  });

  it('does not modify the cluster it reads', () => {
    const cluster = redisCluster({ replicas: 2 });
    const before = structuredClone(cluster);
    desiredState(cluster, 3);
    expect(cluster).toEqual(before);
  });
});
