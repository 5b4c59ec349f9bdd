import { Type, Static } from '@sinclair/typebox';
import { MANAGED_CONFIG_KEYS } from './managed-config-keys';
import { celRules, ObjectName, Quantity, StringEnum, StringMap } from './schema-helpers';

/**
 * The RedisCluster spec: the single source of truth from which both the TypeScript types and the CRD's
 * OpenAPI v3 schema are derived. Defaults live here (`default:`), so the apiserver, the constructs and the
 * controller resolve them identically. Defaulted fields are optional in the schema (the apiserver fills them
 * in) and therefore optional in {@link RedisClusterSpec}; {@link ResolvedRedisClusterSpec} has them all.
 */

export const DEFAULT_REDIS_VERSION = '7.2';
export const DEFAULT_EXPORTER_IMAGE = 'oliver006/redis_exporter:v1.62.0';

const managedKeysList = MANAGED_CONFIG_KEYS.map((key) => `'${key}'`).join(', ');

export const StorageSchema = Type.Object(
  {
    size: Type.Optional(
      Quantity({
        default: '1Gi',
        description: "Size of each pod's PersistentVolumeClaim. Immutable: StatefulSet volumeClaimTemplates cannot change.",
        ...celRules({
          rule: 'self == oldSelf',
          message:
            "storage.size cannot change after creation: the StatefulSet's volumeClaimTemplates are immutable (expand each PersistentVolumeClaim directly instead)",
        }),
      }),
    ),
    storageClassName: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 253,
        description: 'StorageClass of the PersistentVolumeClaims. Omit to use the cluster default. Immutable.',
      }),
    ),
    reclaimPolicy: Type.Optional(
      StringEnum(['Retain', 'Delete'] as const, {
        default: 'Retain',
        description: 'What happens to the PersistentVolumeClaims when the RedisCluster is deleted.',
      }),
    ),
  },
  {
    default: {},
    description: 'Persistent storage for each Redis pod.',
    ...celRules({
      rule:
        'has(self.storageClassName) == has(oldSelf.storageClassName) && (!has(self.storageClassName) || self.storageClassName == oldSelf.storageClassName)',
      message: "storage.storageClassName cannot change after creation: the StatefulSet's volumeClaimTemplates are immutable",
    }),
  },
);

export const AuthSchema = Type.Object(
  {
    passwordSecretName: Type.Optional(
      ObjectName({
        description:
          'Name of an existing Secret in the same namespace holding the password. Omit to let the controller generate `<name>-auth` (an existing Secret of that name is never overwritten).',
      }),
    ),
    passwordSecretKey: Type.Optional(
      Type.String({
        default: 'password',
        minLength: 1,
        maxLength: 253,
        pattern: '^[-._a-zA-Z0-9]+$',
        description: 'Key of the password inside the Secret.',
      }),
    ),
  },
  { default: {}, description: 'Password authentication; always on.' },
);

export const TolerationSchema = Type.Object(
  {
    key: Type.Optional(Type.String({ maxLength: 316 })),
    operator: Type.Optional(StringEnum(['Exists', 'Equal'] as const)),
    value: Type.Optional(Type.String({ maxLength: 63 })),
    effect: Type.Optional(StringEnum(['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const)),
    tolerationSeconds: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  {},
);

export const SchedulingSchema = Type.Object(
  {
    podAntiAffinity: Type.Optional(
      StringEnum(['Preferred', 'Required', 'None'] as const, {
        default: 'Preferred',
        description: 'Spread pods across nodes: Preferred (best effort), Required (never two on one node) or None.',
      }),
    ),
    nodeSelector: Type.Optional(StringMap(Type.String({ maxLength: 63 }), { maxProperties: 32 })),
    tolerations: Type.Optional(Type.Array(TolerationSchema, { maxItems: 32 })),
    priorityClassName: Type.Optional(ObjectName()),
  },
  { default: {}, description: 'Where the Redis pods may run.' },
);

export const ResourceListSchema = Type.Object(
  { cpu: Type.Optional(Quantity()), memory: Type.Optional(Quantity()) },
  {},
);

export const ResourcesSchema = Type.Object(
  { requests: Type.Optional(ResourceListSchema), limits: Type.Optional(ResourceListSchema) },
  {
    description: 'CPU and memory for the Redis container. Omit for requests cpu 100m / memory 256Mi and a 256Mi memory limit.',
  },
);

export const ExporterSchema = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean({ default: false, description: 'Run the redis_exporter sidecar (port 9121).' })),
    image: Type.Optional(Type.String({ default: DEFAULT_EXPORTER_IMAGE, minLength: 1, maxLength: 512 })),
  },
  { default: {}, description: 'Prometheus metrics sidecar.' },
);

export const RedisClusterSpecSchema = Type.Object(
  {
    replicas: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 15,
        default: 3,
        description: 'Number of Redis pods: 1 is a single primary; N > 1 is one primary and N-1 replicas.',
      }),
    ),
    version: Type.Optional(
      Type.String({
        default: DEFAULT_REDIS_VERSION,
        pattern: '^[0-9]+\\.[0-9]+(\\.[0-9]+)?$',
        maxLength: 16,
        description: 'Redis version (such as 7.2 or 7.2.4); the image tag. Downgrades are rejected.',
        ...celRules({
          rule:
            "int(self.split('.')[0]) > int(oldSelf.split('.')[0]) || (int(self.split('.')[0]) == int(oldSelf.split('.')[0]) && int(self.split('.')[1]) >= int(oldSelf.split('.')[1]))",
          message: 'version cannot be downgraded: data files written by a newer Redis cannot be read by an older one',
        }),
      }),
    ),
    image: Type.Optional(
      Type.String({ minLength: 1, maxLength: 512, description: 'Image override; defaults to redis:<version>.' }),
    ),
    automaticFailover: Type.Optional(
      Type.Boolean({
        default: true,
        description: 'Promote the most up-to-date replica when the primary stays unreachable for failureDetectionMilliseconds.',
      }),
    ),
    failureDetectionMilliseconds: Type.Optional(
      Type.Integer({
        minimum: 500,
        maximum: 60000,
        default: 2000,
        description: 'How long the primary must stay unreachable before an automatic failover.',
      }),
    ),
    minReplicasToWrite: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 14,
        description:
          'Redis min-replicas-to-write: the primary refuses writes with fewer connected replicas. Must be less than replicas. ' +
          'Default: 1 when replicas >= 2 (an isolated old primary refuses writes before a new one is promoted), else 0.',
      }),
    ),
    minReplicasMaxLagSeconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 3600,
        default: 1,
        description:
          'Redis min-replicas-max-lag: a replica silent for longer does not count towards minReplicasToWrite. ' +
          'Failover waits at least this + 2 s, so an isolated old primary has stopped accepting writes first.',
      }),
    ),
    persistence: Type.Optional(
      StringEnum(['AOF', 'RDB', 'None'] as const, {
        default: 'AOF',
        description: 'AOF (append-only file, fsync every second), RDB (periodic snapshots) or None.',
      }),
    ),
    config: Type.Optional(
      StringMap(Type.String({ maxLength: 1024 }), {
        maxProperties: 64,
        description:
          'Extra redis.conf parameters. Parameters the operator owns (replicaof, port, dir, bind, rename-command, ...) are rejected.',
        ...celRules(
          {
            rule: "self.all(key, key.matches('^[a-z][a-z0-9-]*$'))",
            message: 'config keys must be lower-case redis.conf parameter names such as maxmemory-policy',
          },
          {
            rule: `self.all(key, !(key in [${managedKeysList}]))`,
            // A static message: a messageExpression naming the offending keys exceeds the apiserver's CEL cost budget.
            message: `config must not set parameters redkite manages: ${MANAGED_CONFIG_KEYS.join(', ')}`,
          },
        ),
      }),
    ),
    storage: Type.Optional(StorageSchema),
    auth: Type.Optional(AuthSchema),
    resources: Type.Optional(ResourcesSchema),
    scheduling: Type.Optional(SchedulingSchema),
    exporter: Type.Optional(ExporterSchema),
  },
  {
    description: 'Desired state of a Redis primary with replicas.',
    ...celRules({
      rule: '!has(self.minReplicasToWrite) || self.minReplicasToWrite < (has(self.replicas) ? self.replicas : 3)',
      message:
        'minReplicasToWrite must be less than replicas: the primary would refuse every write whenever one replica is down',
    }),
  },
);

/** The spec as a user writes it: every defaulted field may be omitted. */
export type RedisClusterSpec = Static<typeof RedisClusterSpecSchema>;

type WithRequired<T, K extends keyof T> = Omit<T, K> & { readonly [P in K]-?: NonNullable<T[P]> };
type Storage = NonNullable<RedisClusterSpec['storage']>;
type Auth = NonNullable<RedisClusterSpec['auth']>;
type Scheduling = NonNullable<RedisClusterSpec['scheduling']>;
type Exporter = NonNullable<RedisClusterSpec['exporter']>;

/** The spec after defaulting: what the constructs and the controller work with. */
export type ResolvedRedisClusterSpec = WithRequired<
  Omit<RedisClusterSpec, 'storage' | 'auth' | 'scheduling' | 'exporter'>,
  | 'replicas'
  | 'version'
  | 'automaticFailover'
  | 'failureDetectionMilliseconds'
  | 'minReplicasToWrite'
  | 'minReplicasMaxLagSeconds'
  | 'persistence'
> & {
  readonly storage: WithRequired<Storage, 'size' | 'reclaimPolicy'>;
  readonly auth: WithRequired<Auth, 'passwordSecretKey'>;
  readonly scheduling: WithRequired<Scheduling, 'podAntiAffinity'>;
  readonly exporter: WithRequired<Exporter, 'enabled' | 'image'>;
};
