import { loadSpecFixtures } from '../support/spec-fixtures';
import { redisClusterOpenApiSchema, resolveSpec } from '../../src/api';
import { compileOpenApiSchema } from '../../src/api/validation/openapi-schema-validation';

describe('resolveSpec', () => {
  it('fills every default of an empty spec', () => {
    expect(resolveSpec({})).toEqual({
      replicas: 3,
      version: '7.2',
      automaticFailover: true,
      failureDetectionMilliseconds: 2000,
      minReplicasToWrite: 1,
      minReplicasMaxLagSeconds: 1,
      persistence: 'AOF',
      storage: { size: '1Gi', reclaimPolicy: 'Retain' },
      auth: { passwordSecretKey: 'password' },
      scheduling: { podAntiAffinity: 'Preferred' },
      exporter: { enabled: false, image: 'oliver006/redis_exporter:v1.62.0' },
    });
  });

  it('keeps values the user set', () => {
    const resolved = resolveSpec({ replicas: 5, storage: { size: '2Gi' }, exporter: { enabled: true } });
    expect(resolved.replicas).toBe(5);
    expect(resolved.storage).toEqual({ size: '2Gi', reclaimPolicy: 'Retain' });
    expect(resolved.exporter.enabled).toBe(true);
  });

  it('does not modify its input', () => {
    const spec = { replicas: 2 };
    resolveSpec(spec);
    expect(spec).toEqual({ replicas: 2 });
  });

  it('asks for one in-sync replica by default when there is a replica, and none for a single pod', () => {
    expect(resolveSpec({ replicas: 2 }).minReplicasToWrite).toBe(1);
    expect(resolveSpec({ replicas: 1 }).minReplicasToWrite).toBe(0);
    expect(resolveSpec({ replicas: 5, minReplicasToWrite: 2 }).minReplicasToWrite).toBe(2);
  });

  // The apiserver defaults from the same schema; ajv's useDefaults stands in for it offline. minReplicasToWrite is
  // the one default that depends on another field, so it is resolved after the schema's defaults.
  it.each(loadSpecFixtures().valid.map((fixture) => [fixture.name, fixture.spec] as const))(
    'defaults %s exactly as schema-driven defaulting does',
    (_name, spec) => {
      const object = { apiVersion: 'redis.redkite.io/v1alpha1', kind: 'RedisCluster', metadata: { name: 'x' }, spec: structuredClone(spec) };
      expect(compileOpenApiSchema(redisClusterOpenApiSchema())(object)).toBe(true);
      const { minReplicasToWrite, ...schemaDefaulted } = resolveSpec(spec);
      expect(schemaDefaulted).toEqual({ ...object.spec, minReplicasToWrite: undefined });
      expect(minReplicasToWrite).toBe(spec.minReplicasToWrite ?? (schemaDefaulted.replicas >= 2 ? 1 : 0));
    },
  );
});
