import { Type } from '@sinclair/typebox';
import { RedisClusterSpecSchema } from './redis-cluster-spec';
import { RedisClusterStatusSchema } from './redis-cluster-status';

/** The whole object's schema, as it goes into the CRD's `openAPIV3Schema`. */
export const RedisClusterObjectSchema = Type.Object(
  {
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    metadata: Type.Optional(
      Type.Object(
        {
          // StatefulSet pod names are `<name>-<ordinal>` and carry a controller-revision-hash label of
          // `<name>-<10 chars>`, which must fit in 63 characters; 40 leaves room for every derived name.
          name: Type.Optional(Type.String({ maxLength: 40 })),
        },
        {},
      ),
    ),
    spec: RedisClusterSpecSchema,
    status: Type.Optional(RedisClusterStatusSchema),
  },
  { description: 'A Redis primary with replicas, kept healthy by the redkite controller.' },
);

/**
 * The schema as plain JSON: TypeBox decorates schemas with symbol keys that must not reach YAML,
 * and a deep copy guarantees callers cannot mutate the shared definition.
 */
export function redisClusterOpenApiSchema(): Record<string, unknown> {
  return JSON.parse(JSON.stringify(RedisClusterObjectSchema)) as Record<string, unknown>;
}
