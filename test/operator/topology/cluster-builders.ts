import type { ReachableRedisObservation, RedisObservation, ReplicationPosition } from '../../../operator/redis/observation';
import { RedisCommandError, RedisUnreachableError } from '../../../operator/redis/errors';
import { addressOf, answeringRedisObservation } from '../../support/redis-observation-builders';
import type { ClusterMember, TopologyAction, TopologyInput } from '../../../operator/topology';

export { addressOf };

const baseObservation = answeringRedisObservation({ redisVersion: '7.0.15' });

interface MemberOptions {
  readonly labelled?: boolean;
  readonly offset?: number;
  readonly observation?: Partial<ReachableRedisObservation>;
}

function member(ordinal: number, options: MemberOptions, observation: RedisObservation | null): ClusterMember {
  return {
    name: `cache-${ordinal}`,
    ordinal,
    address: observation === null ? null : addressOf(ordinal),
    labelledPrimary: options.labelled ?? false,
    observation,
  };
}

/** The known position a probe reports for an offset in history `history-a` (or the observation's own). */
function known(options: MemberOptions): ReplicationPosition {
  const replicationId = options.observation?.replicationId ?? 'history-a';
  return { kind: 'known', replicationId, offset: options.offset ?? 0, secondaryReplicationId: options.observation?.position?.kind === 'known' ? options.observation.position.secondaryReplicationId : undefined, secondaryOffset: undefined };
}

/** A pod reporting role primary, with the given replica ordinals attached. */
export function primary(ordinal: number, options: MemberOptions & { readonly replicas?: readonly number[] } = {}): ClusterMember {
  return member(ordinal, options, {
    ...baseObservation,
    offset: options.offset ?? 0,
    position: known(options),
    connectedReplicas: (options.replicas ?? []).map((replica) => ({
      ip: addressOf(replica),
      port: 6379,
      state: 'online',
      offset: options.offset ?? 0,
      lagSeconds: 0,
    })),
    ...options.observation,
  });
}

/** A pod reporting role replica of the pod with ordinal `of`; by default linked up and fresh. */
export function replica(ordinal: number, of: number, options: MemberOptions = {}): ClusterMember {
  return member(ordinal, options, {
    ...baseObservation,
    role: 'replica',
    offset: options.offset ?? 0,
    position: known(options),
    primaryHost: addressOf(of),
    primaryPort: 6379,
    primaryLinkUp: true,
    primaryLastIoSecondsAgo: 0,
    ...options.observation,
  });
}

/** A replica of `of` whose link is down (its primary is dead or frozen past the timeout). */
export function orphanedReplica(ordinal: number, of: number, options: MemberOptions = {}): ClusterMember {
  return replica(ordinal, of, {
    ...options,
    observation: { primaryLinkUp: false, primaryLastIoSecondsAgo: undefined, primaryLinkDownSinceSeconds: 1, ...options.observation },
  });
}

/** A running pod whose Redis does not answer. */
export function unreachable(ordinal: number, options: MemberOptions = {}): ClusterMember {
  return member(ordinal, options, {
    reachable: false,
    error: new RedisUnreachableError(`${addressOf(ordinal)}:6379`, 'Command timed out'),
  });
}

/** A pod that is not running (no address, not probed). */
export function gone(ordinal: number, options: MemberOptions = {}): ClusterMember {
  return member(ordinal, options, null);
}

/** Input with sensible defaults: 3 desired pods, failover on, 2 s detection, at time 10 000. */
export function input(members: readonly ClusterMember[], overrides: Partial<TopologyInput> = {}): TopologyInput {
  return {
    members,
    desiredReplicas: 3,
    automaticFailover: true,
    nowMilliseconds: 10_000,
    memory: {},
    ...overrides,
    record: overrides.record,
  };
}

/** Actions without events and min-replicas settings, for comparing topology steps. */
export function steps(actions: readonly TopologyAction[]): unknown[] {
  return actions
    .filter((action) => action.kind !== 'emitEvent' && action.kind !== 'setMinReplicasToWrite')
    .map((action) => (action.kind === 'replicateFrom' ? { kind: action.kind, pod: action.pod, primaryPod: action.primaryPod, reason: action.reason } : action));
}

export function events(actions: readonly TopologyAction[]): string[] {
  return actions.flatMap((action) => (action.kind === 'emitEvent' ? [action.reason] : []));
}

/** The boot-time fence every pod starts replicating from (src/workload/redis-conf.ts). */
const FENCE_HOST = '127.0.0.1';

/** A pod that restarted on an empty volume: a fenced replica holding nothing. */
export function emptyMember(ordinal: number, options: MemberOptions = {}): ClusterMember {
  return replica(ordinal, 0, {
    ...options,
    observation: { primaryHost: FENCE_HOST, primaryPort: 1, primaryLinkUp: false, primaryLastIoSecondsAgo: undefined, offset: 0, keys: 0, replicationId: `fresh-${ordinal}`, position: { kind: 'empty', replicationId: `fresh-${ordinal}` }, ...options.observation },
  });
}

/** A pod that restarted from its AOF: every key loaded, but Redis reports no replication position. */
export function restartedFromAof(ordinal: number, options: MemberOptions = {}): ClusterMember {
  return replica(ordinal, 0, {
    ...options,
    observation: {
      primaryHost: FENCE_HOST,
      primaryPort: 1,
      primaryLinkUp: false,
      primaryLastIoSecondsAgo: undefined,
      offset: 0,
      replicationId: `fresh-${ordinal}`,
      keys: 300,
      position: { kind: 'unknown', why: 'it holds 300 keys but no replication position (restarted from AOF)' },
      ...options.observation,
    },
  });
}

/** A running pod whose Redis answers with an error reply (alive), e.g. a password it does not accept. */
export function refusing(ordinal: number, reply = 'WRONGPASS invalid username-password pair or user is disabled.', options: MemberOptions = {}): ClusterMember {
  return member(ordinal, options, { reachable: false, error: new RedisCommandError(`${addressOf(ordinal)}:6379`, 'AUTH', reply) });
}

/** Marks a member Terminating. */
export function terminating(clusterMember: ClusterMember): ClusterMember {
  return { ...clusterMember, terminating: true };
}
