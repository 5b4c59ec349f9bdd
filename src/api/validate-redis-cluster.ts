import { REDIS_CLUSTER_API_VERSION, REDIS_CLUSTER_KIND } from './api-group';
import { REDIS_CLUSTER_SCALE_SUBRESOURCE } from './redis-cluster-scale';
import { RedisClusterSpec } from './redis-cluster-spec';
import { redisClusterOpenApiSchema } from './redis-cluster-schema';
import { CustomResourceValidator } from './validation/custom-resource-validator';
import { FieldError, fieldErrorText } from './validation/field-error';

/**
 * RedisCluster admission offline: the CRD's own schema, CEL rules and scale subresource (what `src/crd` puts into
 * the CRD), so a spec the apiserver would reject fails `cdk8s synth` with the apiserver's message instead of failing
 * later, when Argo CD or `kubectl apply` reaches the cluster.
 */

let validator: CustomResourceValidator | undefined;

/** Compiled on first use: ajv code generation and CEL planning happen once per process. */
function redisClusterValidator(): CustomResourceValidator {
  validator ??= new CustomResourceValidator({ openApiSchema: redisClusterOpenApiSchema(), scale: REDIS_CLUSTER_SCALE_SUBRESOURCE });
  return validator;
}

export interface RedisClusterValidationOptions {
  /**
   * The object as currently stored, to validate an update: transition rules (`oldSelf`) then apply too.
   * @default - validated as a create
   */
  readonly oldObject?: unknown;
}

/**
 * Results by input. cdk8s's own App validates the whole App once per chart, so the same object is validated once
 * per chart of the App; the controller validates the same stored spec on every reconcile. Bounded, as inputs vary.
 */
const recentResults = new Map<string, readonly FieldError[]>();
const MAX_RECENT_RESULTS = 1024;

/** The errors the apiserver would report for this RedisCluster object (empty when it would admit it). */
export function validateRedisClusterObject(object: unknown, options: RedisClusterValidationOptions = {}): FieldError[] {
  const key = JSON.stringify([object, options.oldObject]);
  let errors = recentResults.get(key);
  if (!errors) {
    errors = redisClusterValidator().validate(object, options.oldObject);
    if (recentResults.size >= MAX_RECENT_RESULTS) recentResults.clear();
    recentResults.set(key, errors);
  }
  return [...errors];
}

/** `RedisCluster payments/sessions`: the object an error is about, as a user would look it up. */
export function describeRedisCluster(object: unknown): string {
  const metadata = ((object ?? {}) as { metadata?: { name?: unknown; namespace?: unknown } }).metadata ?? {};
  const name = typeof metadata.name === 'string' ? metadata.name : '(unnamed)';
  return `${REDIS_CLUSTER_KIND} ${typeof metadata.namespace === 'string' ? `${metadata.namespace}/` : ''}${name}`;
}

/**
 * One line per error, naming the object, worded as the apiserver words it:
 * `RedisCluster payments/sessions is invalid: spec: Invalid value: "object": minReplicasToWrite must be less than replicas: ...`.
 */
export function redisClusterValidationMessages(object: unknown, options: RedisClusterValidationOptions = {}): string[] {
  const label = describeRedisCluster(object);
  return validateRedisClusterObject(object, options).map((error) =>
    error.reason === 'FieldValueUnknown' ? `${label}: ${fieldErrorText(error)}` : `${label} is invalid: ${fieldErrorText(error)}`,
  );
}

/** A RedisCluster object for a name, namespace and spec, as the apiserver would receive it. */
export function redisClusterManifest(name: string, namespace: string | undefined, spec: RedisClusterSpec | Record<string, unknown> = {}) {
  return { apiVersion: REDIS_CLUSTER_API_VERSION, kind: REDIS_CLUSTER_KIND, metadata: { name, ...(namespace ? { namespace } : {}) }, spec };
}
