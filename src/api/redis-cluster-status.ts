import { Type, Static } from '@sinclair/typebox';
import { StringEnum } from './schema-helpers';

/** Condition types the controller reports, following Kubernetes API conventions. */
export const CONDITION_TYPES = ['Ready', 'Available', 'Progressing', 'Degraded'] as const;
export type RedisClusterConditionType = (typeof CONDITION_TYPES)[number];

/** Coarse lifecycle phase, for humans and the printer column; conditions carry the detail. */
export const PHASES = ['Pending', 'Provisioning', 'Ready', 'FailingOver', 'Degraded', 'Failed', 'Deleting'] as const;
export type RedisClusterPhase = (typeof PHASES)[number];

/** The standard `metav1.Condition` shape. */
export const ConditionSchema = Type.Object(
  {
    type: Type.String({ maxLength: 316, pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$' }),
    status: StringEnum(['True', 'False', 'Unknown'] as const),
    observedGeneration: Type.Optional(Type.Integer({ minimum: 0, format: 'int64' })),
    lastTransitionTime: Type.String({ format: 'date-time' }),
    reason: Type.String({ minLength: 1, maxLength: 1024, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$' }),
    message: Type.String({ maxLength: 32768 }),
  },
  {},
);
export type Condition = Static<typeof ConditionSchema>;

export const RedisClusterStatusSchema = Type.Object(
  {
    phase: Type.Optional(StringEnum(PHASES)),
    replicas: Type.Optional(Type.Integer({ minimum: 0, description: 'Redis pods that exist.' })),
    readyReplicas: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Redis pods that answer PING and sit correctly in the replication topology.' }),
    ),
    ready: Type.Optional(Type.String({ description: 'readyReplicas/replicas, for the printer column.' })),
    primary: Type.Optional(Type.String({ description: 'Name of the pod that is the current primary.' })),
    primaryRecord: Type.Optional(
      Type.Object(
        {
          primary: Type.String({ minLength: 1, description: 'The pod chosen as primary.' }),
          epoch: Type.Integer({ minimum: 1, format: 'int64', description: 'Grows by one at every change of primary.' }),
          replicationId: Type.Optional(Type.String({ description: "The primary's replication history (master_replid) once observed." })),
        },
        {
          description:
            'The durable failover decision (docs/failover.md, I5): written with a resourceVersion precondition before the topology changes.',
        },
      ),
    ),
    selector: Type.Optional(Type.String({ description: 'Label selector of the Redis pods, for the scale subresource.' })),
    currentVersion: Type.Optional(Type.String({ description: 'Redis version every pod runs, once a rollout is complete.' })),
    lastFailoverTime: Type.Optional(Type.String({ format: 'date-time' })),
    observedGeneration: Type.Optional(Type.Integer({ minimum: 0, format: 'int64' })),
    conditions: Type.Optional(
      Type.Array(ConditionSchema, {
        maxItems: 16,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['type'],
      }),
    ),
  },
  { description: 'Observed state, written by the controller only.' },
);
export type RedisClusterStatus = Static<typeof RedisClusterStatusSchema>;
