import { Testing, Yaml } from 'cdk8s';
import { RedisClusterCrd } from '../../src/crd/redis-cluster-crd';
import { CustomResourceValidator, REDIS_CLUSTER_SCALE_SUBRESOURCE } from '../../src/api';
import { compileCelExpression } from '../../src/api/validation/kubernetes-cel-environment';
import { expectMatchesGolden } from '../support/golden';

type Schema = Record<string, unknown>;

function synthCrd() {
  const chart = Testing.chart();
  new RedisClusterCrd(chart, 'crd');
  const [crd] = Testing.synth(chart);
  return crd;
}

/** Walks a JSON schema, calling `visit` with every sub-schema and its path. */
function walk(schema: Schema, path: string, visit: (schema: Schema, path: string) => void): void {
  visit(schema, path);
  for (const [key, value] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) walk(value, `${path}.${key}`, visit);
  if (schema.items) walk(schema.items as Schema, `${path}[]`, visit);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    walk(schema.additionalProperties as Schema, `${path}{}`, visit);
  }
}

describe('RedisClusterCrd', () => {
  it('matches its golden YAML', () => {
    expectMatchesGolden('redis-cluster-crd.k8s.yaml', Yaml.stringify(synthCrd()));
  });

  it('names the API redis.redkite.io/v1alpha1 RedisCluster with a short name no built-in uses', () => {
    const crd = synthCrd();
    expect(crd.metadata.name).toBe('redisclusters.redis.redkite.io');
    expect(crd.spec.scope).toBe('Namespaced');
    expect(crd.spec.names).toMatchObject({ kind: 'RedisCluster', plural: 'redisclusters', categories: ['redkite'] });
    expect(crd.spec.names.shortNames).not.toContain('rc');
  });

  it('has status and scale subresources wired to spec.replicas and status.selector', () => {
    const [version] = synthCrd().spec.versions;
    expect(version.subresources).toEqual({
      status: {},
      scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' },
    });
  });

  it('prints Ready (x/y), Primary, Phase and Age', () => {
    const [version] = synthCrd().spec.versions;
    const columns = version.additionalPrinterColumns.filter((column: { priority?: number }) => !column.priority);
    expect(columns.map((column: { name: string }) => column.name)).toEqual(['Ready', 'Primary', 'Phase', 'Age']);
  });

  it('is a structural schema: every node has a type and no node mixes properties with additionalProperties', () => {
    const schema = synthCrd().spec.versions[0].schema.openAPIV3Schema as Schema;
    const problems: string[] = [];
    walk(schema, '', (node, path) => {
      if (path !== '' && node.type === undefined && node['x-kubernetes-int-or-string'] !== true) problems.push(`${path}: no type`);
      if (node.properties && node.additionalProperties !== undefined) problems.push(`${path}: properties and additionalProperties`);
      for (const forbidden of ['anyOf', 'oneOf', 'const', 'patternProperties', '$id', '$ref']) {
        if (forbidden in node) problems.push(`${path}: ${forbidden}`);
      }
    });
    expect(problems).toEqual([]);
  });

  it('carries CEL rules for the cross-field and transition checks', () => {
    const rules: string[] = [];
    walk(synthCrd().spec.versions[0].schema.openAPIV3Schema as Schema, '', (node) => {
      for (const rule of (node['x-kubernetes-validations'] ?? []) as { rule: string }[]) rules.push(rule.rule);
    });
    expect(rules).toEqual(
      expect.arrayContaining([
        expect.stringContaining('self.minReplicasToWrite < '),
        expect.stringContaining('self.storageClassName == oldSelf.storageClassName'),
        'self == oldSelf',
        expect.stringContaining("oldSelf.split('.')"),
      ]),
    );
  });

  it('has only CEL rules the offline environment evaluates (synth-time validation reads this very CRD)', () => {
    const [version] = synthCrd().spec.versions;
    const rules: string[] = [];
    walk(version.schema.openAPIV3Schema as Schema, '', (node) => {
      for (const rule of (node['x-kubernetes-validations'] ?? []) as { rule: string }[]) rules.push(rule.rule);
    });
    expect(rules.length).toBeGreaterThanOrEqual(5);
    for (const rule of rules) expect(() => compileCelExpression(rule)).not.toThrow();
    expect(() => new CustomResourceValidator({ openApiSchema: version.schema.openAPIV3Schema, scale: version.subresources.scale })).not.toThrow();
    expect(version.subresources.scale).toEqual(REDIS_CLUSTER_SCALE_SUBRESOURCE);
  });
});
