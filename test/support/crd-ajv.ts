import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { redisClusterOpenApiSchema } from '../../src/api';

type Schema = Record<string, unknown>;

/**
 * Marks every object that declares `properties` as closed, which is what the apiserver does under strict field
 * validation (`kubectl --validate=strict`, the default): unknown fields are errors instead of being pruned.
 */
function closeObjects(schema: Schema): Schema {
  const copy: Schema = { ...schema };
  if (copy.properties && typeof copy.properties === 'object') {
    copy.properties = Object.fromEntries(
      Object.entries(copy.properties as Record<string, Schema>).map(([key, value]) => [key, closeObjects(value)]),
    );
    if (copy.additionalProperties === undefined) copy.additionalProperties = false;
  }
  if (copy.items && typeof copy.items === 'object') copy.items = closeObjects(copy.items as Schema);
  if (copy.additionalProperties && typeof copy.additionalProperties === 'object') {
    copy.additionalProperties = closeObjects(copy.additionalProperties as Schema);
  }
  return copy;
}

/**
 * An ajv validator for RedisCluster objects built from the CRD's own schema. It applies defaults (`useDefaults`)
 * like the apiserver; it cannot evaluate the CEL rules, which the real-apiserver tests cover.
 */
export function redisClusterValidator(): ValidateFunction {
  const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: true });
  addFormats(ajv);
  ajv.addFormat('int64', { type: 'number', validate: (value: number) => Number.isSafeInteger(value) });
  for (const keyword of ['x-kubernetes-validations', 'x-kubernetes-list-type', 'x-kubernetes-list-map-keys']) {
    ajv.addKeyword(keyword);
  }
  const schema = closeObjects(redisClusterOpenApiSchema());
  // metadata is validated by the apiserver itself beyond what the CRD declares.
  const metadata = (schema.properties as Record<string, Schema>).metadata;
  metadata.additionalProperties = true;
  return ajv.compile(schema);
}

/** ajv's error paths (`/spec/replicas`) in the apiserver's dotted form (`spec.replicas`). */
export function errorPaths(validate: ValidateFunction): string[] {
  return (validate.errors ?? []).map((error) => {
    const base = error.instancePath.replace(/^\//, '').replace(/\/(\d+)(?=\/|$)/g, '[$1]').replace(/\//g, '.');
    const extra = error.keyword === 'additionalProperties' ? `${base ? base + '.' : ''}${String(error.params.additionalProperty)}` : base;
    return extra;
  });
}
