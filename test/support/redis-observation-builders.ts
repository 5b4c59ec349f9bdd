import type { ReachableRedisObservation } from '../../operator/redis/observation';

/** Pod IP of the pod with this ordinal in unit-test clusters. */
export function addressOf(ordinal: number): string {
  return `10.0.0.${ordinal + 10}`;
}

/** A Redis that answered the probe as a standalone primary with no replicas; override what a test needs. */
export function answeringRedisObservation(overrides: Partial<ReachableRedisObservation> = {}): ReachableRedisObservation {
  const replicationId = overrides.replicationId ?? 'history-a';
  const offset = overrides.offset ?? 0;
  return {
    position: { kind: 'known', replicationId, offset, secondaryReplicationId: undefined, secondaryOffset: undefined },
    keys: 0,
    reachable: true,
    role: 'primary',
    runId: 'run',
    redisVersion: '7.0.15',
    replicationId: 'history-a',
    offset: 0,
    primaryHost: undefined,
    primaryPort: undefined,
    primaryLinkUp: false,
    primaryLastIoSecondsAgo: undefined,
    primaryLinkDownSinceSeconds: undefined,
    syncInProgress: false,
    connectedReplicas: [],
    minReplicasToWrite: 0,
    loading: false,
    failoverState: 'no-failover',
    ...overrides,
  } as ReachableRedisObservation;
}
