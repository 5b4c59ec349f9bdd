import type { ReachableRedisObservation, RedisObservation, UnreachableRedisObservation } from '../../../operator/redis/observation';
import { RedisUnreachableError } from '../../../operator/redis/errors';
import { addressOf, answeringRedisObservation } from '../../support/redis-observation-builders';
import type { ClusterMember } from '../../../operator/topology';

/** Name of the RedisCluster every builder here belongs to. */
export const CLUSTER_NAME = 'cache';

/** The StatefulSet pod name for an ordinal. */
export function podName(ordinal: number): string {
  return `${CLUSTER_NAME}-${ordinal}`;
}

export { addressOf };

const answeringServer = answeringRedisObservation({ redisVersion: '7.2.5' });

/** A server answering as a primary. */
export function primaryObservation(overrides: Partial<ReachableRedisObservation> = {}): ReachableRedisObservation {
  return { ...answeringServer, ...overrides };
}

/** A server answering as a replica of the pod with ordinal `primaryOrdinal`, linked up unless overridden. */
export function replicaOf(primaryOrdinal: number, overrides: Partial<ReachableRedisObservation> = {}): ReachableRedisObservation {
  return {
    ...answeringServer,
    role: 'replica',
    primaryHost: addressOf(primaryOrdinal),
    primaryPort: 6379,
    primaryLinkUp: true,
    primaryLastIoSecondsAgo: 0,
    ...overrides,
  };
}

/** A running pod whose Redis does not answer. */
export function unreachableObservation(ordinal: number): UnreachableRedisObservation {
  return { reachable: false, error: new RedisUnreachableError(`${addressOf(ordinal)}:6379`, 'Command timed out') };
}

export interface MemberOptions {
  readonly ordinal: number;
  /** @default `cache-<ordinal>` */
  readonly name?: string;
  /** @default the ordinal's pod IP ({@link addressOf}) */
  readonly address?: string | null;
  /** @default false */
  readonly labelledPrimary?: boolean;
  /** @default null (not probed) */
  readonly observation?: RedisObservation | null;
}

/** One pod of the cluster as the controller sees it. */
export function member({ ordinal, name, address, labelledPrimary, observation }: MemberOptions): ClusterMember {
  return {
    name: name ?? podName(ordinal),
    ordinal,
    address: address === undefined ? addressOf(ordinal) : address,
    labelledPrimary: labelledPrimary ?? false,
    observation: observation ?? null,
  };
}

/** A labelled pod serving as primary. */
export function servingPrimary(ordinal: number, offset = 0): ClusterMember {
  return member({ ordinal, labelledPrimary: true, observation: primaryObservation({ offset }) });
}

/** A pod replicating from `primaryOrdinal` with the link up. */
export function linkedReplica(ordinal: number, primaryOrdinal: number, offset = 0): ClusterMember {
  return member({ ordinal, observation: replicaOf(primaryOrdinal, { offset }) });
}
