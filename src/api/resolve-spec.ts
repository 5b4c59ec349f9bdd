import { Value } from '@sinclair/typebox/value';
import { RedisClusterSpec, RedisClusterSpecSchema, ResolvedRedisClusterSpec } from './redis-cluster-spec';

/**
 * Applies the schema's defaults to a spec, exactly as the apiserver does on admission, plus the defaults that
 * depend on other fields (`minReplicasToWrite`).
 * Pure: the input is not modified.
 */
export function resolveSpec(spec: RedisClusterSpec = {}): ResolvedRedisClusterSpec {
  const copy = structuredClone(spec) as Record<string, unknown>;
  // The apiserver defaults an absent object to its `default: {}` and then its fields; TypeBox does the same.
  const resolved = Value.Default(RedisClusterSpecSchema, copy) as ResolvedRedisClusterSpec & { minReplicasToWrite?: number };
  // Not a schema default: the apiserver applies defaults before CEL, and 1 would make `replicas: 1` invalid.
  // One in-sync replica by default is what makes an isolated old primary refuse writes (docs/failover.md, I2/I3).
  resolved.minReplicasToWrite ??= resolved.replicas >= 2 ? 1 : 0;
  return resolved;
}
