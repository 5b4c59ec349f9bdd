import { Value } from '@sinclair/typebox/value';
import { RedisClusterSpec, RedisClusterSpecSchema, ResolvedRedisClusterSpec } from './redis-cluster-spec';

/**
 * Applies the schema's defaults to a spec, exactly as the apiserver does on admission.
 * Pure: the input is not modified.
 */
export function resolveSpec(spec: RedisClusterSpec = {}): ResolvedRedisClusterSpec {
  const copy = structuredClone(spec) as Record<string, unknown>;
  // The apiserver defaults an absent object to its `default: {}` and then its fields; TypeBox does the same.
  return Value.Default(RedisClusterSpecSchema, copy) as ResolvedRedisClusterSpec;
}
