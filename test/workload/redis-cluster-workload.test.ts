import { Testing, Yaml } from 'cdk8s';
import { RedisClusterWorkload } from '../../src/workload/redis-cluster-workload';
import { synthesizeRedisClusterWorkload } from '../../src/workload/synthesize-workload';
import { RESTART_CONFIG_HASH_ANNOTATION, ROLE_LABEL, selectorLabels } from '../../src/naming';
import { expectMatchesGolden } from '../support/golden';

const owner = { apiVersion: 'redis.redkite.io/v1alpha1', kind: 'RedisCluster', name: 'cache', uid: '0f1e2d3c-0000-4000-8000-000000000001' };

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Manifest = any;

function synth(spec = {}, name = 'cache'): Manifest[] {
  return synthesizeRedisClusterWorkload({ name, namespace: 'prod', spec, owner }).manifests;
}
function byKind(manifests: Manifest[], kind: string, name?: string): Manifest {
  const found = manifests.find((manifest) => manifest.kind === kind && (name === undefined || manifest.metadata.name === name));
  if (!found) throw new Error(`no ${kind} ${name ?? ''}`);
  return found;
}

describe('RedisClusterWorkload', () => {
  it('matches its golden YAML for a default three-pod cluster', () => {
    expectMatchesGolden('redis-cluster-workload.k8s.yaml', Yaml.stringify(...synth()));
  });

  it('produces byte-identical output for the same input', () => {
    const spec = { replicas: 5, config: { 'maxmemory-policy': 'allkeys-lru', timeout: '30' } };
    expect(Yaml.stringify(...synth(spec))).toBe(Yaml.stringify(...synth(structuredClone(spec))));
  });

  it('creates the ConfigMap, StatefulSet, three Services and a PodDisruptionBudget with explicit names', () => {
    const names = synth().map((manifest) => `${manifest.kind}/${manifest.metadata.name}`).sort();
    expect(names).toEqual([
      'ConfigMap/cache-config',
      'PodDisruptionBudget/cache',
      'Service/cache',
      'Service/cache-headless',
      'Service/cache-replicas',
      'StatefulSet/cache',
    ]);
  });

  it('keeps the StatefulSet selector and claim templates free of anything that changes with the spec', () => {
    const a = byKind(synth({ version: '7.0', replicas: 3 }), 'StatefulSet');
    const b = byKind(synth({ version: '7.2', replicas: 5, config: { databases: '32' } }), 'StatefulSet');
    expect(a.spec.selector).toEqual({ matchLabels: selectorLabels('cache') });
    expect(b.spec.selector).toEqual(a.spec.selector);
    expect(b.spec.volumeClaimTemplates).toEqual(a.spec.volumeClaimTemplates);
    expect(a.spec.selector.matchLabels).toEqual({
      'app.kubernetes.io/name': 'redis',
      'app.kubernetes.io/instance': 'cache',
      'app.kubernetes.io/managed-by': 'redkite',
    });
  });

  it('points the primary Service at the pod labelled primary and the replicas Service at replicas', () => {
    const manifests = synth();
    expect(byKind(manifests, 'Service', 'cache').spec.selector[ROLE_LABEL]).toBe('primary');
    expect(byKind(manifests, 'Service', 'cache-replicas').spec.selector[ROLE_LABEL]).toBe('replica');
    expect(byKind(manifests, 'Service', 'cache-headless').spec).toMatchObject({ clusterIP: 'None', publishNotReadyAddresses: true });
  });

  it('makes every object owner-referenceable by the RedisCluster', () => {
    for (const manifest of synth()) {
      expect(manifest.metadata.ownerReferences).toEqual([{ ...owner, controller: true, blockOwnerDeletion: true }]);
      expect(manifest.metadata.namespace).toBe('prod');
    }
  });

  it('runs every container under the restricted Pod Security Standard as uid 999', () => {
    const template = byKind(synth({ exporter: { enabled: true } }), 'StatefulSet').spec.template.spec;
    expect(template.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 999, fsGroup: 999, seccompProfile: { type: 'RuntimeDefault' } });
    expect(template.containers).toHaveLength(2);
    for (const container of template.containers) {
      expect(container.securityContext).toEqual({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        runAsNonRoot: true,
        capabilities: { drop: ['ALL'] },
        seccompProfile: { type: 'RuntimeDefault' },
      });
    }
  });

  it('mounts the data claim at /data and redis.conf from the ConfigMap', () => {
    const statefulSet = byKind(synth({ storage: { size: '5Gi', storageClassName: 'fast' } }), 'StatefulSet');
    const redis = statefulSet.spec.template.spec.containers[0];
    expect(redis.volumeMounts).toEqual([
      { name: 'data', mountPath: '/data' },
      { name: 'config', mountPath: '/etc/redis', readOnly: true },
    ]);
    expect(statefulSet.spec.volumeClaimTemplates[0].spec).toEqual({
      accessModes: ['ReadWriteOnce'],
      storageClassName: 'fast',
      resources: { requests: { storage: '5Gi' } },
    });
  });

  it('deletes claims with the StatefulSet only when the reclaim policy says Delete', () => {
    expect(byKind(synth(), 'StatefulSet').spec.persistentVolumeClaimRetentionPolicy.whenDeleted).toBe('Retain');
    expect(byKind(synth({ storage: { reclaimPolicy: 'Delete' } }), 'StatefulSet').spec.persistentVolumeClaimRetentionPolicy.whenDeleted).toBe('Delete');
  });

  it('reads the password from the generated Secret unless the spec names one', () => {
    const env = (spec: object) => byKind(synth(spec), 'StatefulSet').spec.template.spec.containers[0].env;
    expect(env({}).find((variable: Manifest) => variable.name === 'REDIS_PASSWORD').valueFrom.secretKeyRef).toEqual({ name: 'cache-auth', key: 'password' });
    expect(env({ auth: { passwordSecretName: 'mine', passwordSecretKey: 'pw' } }).find((variable: Manifest) => variable.name === 'REDIS_PASSWORD').valueFrom.secretKeyRef).toEqual({ name: 'mine', key: 'pw' });
  });

  it('uses the version as the image tag unless an image is given', () => {
    expect(byKind(synth({ version: '7.0' }), 'StatefulSet').spec.template.spec.containers[0].image).toBe('redis:7.0');
    expect(byKind(synth({ image: 'mirror/redis:x' }), 'StatefulSet').spec.template.spec.containers[0].image).toBe('mirror/redis:x');
  });

  it('changes the pod template only for config parameters that need a restart', () => {
    const hash = (config: Record<string, string>) =>
      byKind(synth({ config }), 'StatefulSet').spec.template.metadata.annotations[RESTART_CONFIG_HASH_ANNOTATION];
    expect(hash({ 'maxmemory-policy': 'allkeys-lru' })).toBe(hash({}));
    expect(hash({ databases: '32' })).not.toBe(hash({}));
  });

  it('spreads pods over nodes as the scheduling policy asks', () => {
    const affinity = (podAntiAffinity: string) => byKind(synth({ scheduling: { podAntiAffinity } }), 'StatefulSet').spec.template.spec.affinity;
    expect(affinity('Required').podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey).toBe('kubernetes.io/hostname');
    expect(affinity('Preferred').podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight).toBe(100);
    expect(affinity('None')).toBeUndefined();
  });

  it('lets at most one pod be disrupted at a time', () => {
    expect(byKind(synth(), 'PodDisruptionBudget').spec.maxUnavailable).toBe(1);
  });

  it('adds the exporter sidecar only when enabled', () => {
    expect(byKind(synth(), 'StatefulSet').spec.template.spec.containers).toHaveLength(1);
    const containers = byKind(synth({ exporter: { enabled: true, image: 'exporter:1' } }), 'StatefulSet').spec.template.spec.containers;
    expect(containers[1]).toMatchObject({ name: 'exporter', image: 'exporter:1', ports: [{ containerPort: 9121 }] });
  });

  it('can be placed in a user chart', () => {
    const chart = Testing.chart();
    new RedisClusterWorkload(chart, 'workload', { name: 'sessions', namespace: 'web', spec: { replicas: 1 } });
    const statefulSet = Testing.synth(chart).find((manifest) => manifest.kind === 'StatefulSet');
    expect(statefulSet.metadata).toMatchObject({ name: 'sessions', namespace: 'web' });
    expect(statefulSet.metadata.ownerReferences).toBeUndefined();
  });
});
