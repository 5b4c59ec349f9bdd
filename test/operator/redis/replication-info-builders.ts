import type { ReplicationInfo } from '../../../operator/redis/info-parser';

export const PRIMARY = { host: '10.0.0.1', port: 6379 } as const;
export const TARGET = { host: '10.0.0.2', port: 6379 } as const;
export const OTHER = { host: '10.0.0.3', port: 6379 } as const;
export const HISTORY = 'a'.repeat(40);

/** `INFO replication` of a primary at `offset`, its two replicas online. */
export function primaryReplication(offset: number, overrides: Partial<ReplicationInfo> = {}): ReplicationInfo {
  return {
    role: 'primary',
    replicationId: HISTORY,
    replicationStreamOffset: offset,
    secondaryReplicationId: undefined,
    secondaryReplicationOffset: -1,
    appliedOffset: undefined,
    receivedOffset: undefined,
    primaryHost: undefined,
    primaryPort: undefined,
    primaryLinkUp: false,
    primaryLastIoSecondsAgo: undefined,
    primaryLinkDownSinceSeconds: undefined,
    syncInProgress: false,
    connectedReplicas: [TARGET, OTHER].map(({ host, port }) => ({ ip: host, port, state: 'online', offset, lagSeconds: 0 })),
    failoverState: 'no-failover',
    ...overrides,
  };
}

/** `INFO replication` of a replica of `primary` that applied up to `offset`, link up. */
export function replicaReplication(
  offset: number,
  primary: { readonly host: string; readonly port: number } = PRIMARY,
  overrides: Partial<ReplicationInfo> = {},
): ReplicationInfo {
  return {
    ...primaryReplication(offset),
    role: 'replica',
    appliedOffset: offset,
    receivedOffset: offset,
    primaryHost: primary.host,
    primaryPort: primary.port,
    primaryLinkUp: true,
    primaryLastIoSecondsAgo: 0,
    connectedReplicas: [],
    ...overrides,
  };
}
