/** Redis administration over ioredis: observe servers and change their replication. No Kubernetes here. */
export { RedisAdmin, type RedisAdministration } from './admin';
export { RedisConnectionPool, type RedisConnectionPoolOptions } from './connection-pool';
export { DEFAULT_REDIS_PORT, endpointAddress, type RedisEndpoint } from './endpoint';
export { RedisCommandError, RedisUnreachableError } from './errors';
export {
  InfoParseError,
  parseInfo,
  parseKeyCount,
  parseLoading,
  parseReplicationInfo,
  parseServerInfo,
  type ConnectedReplica,
  type InfoSections,
  type ReplicationInfo,
  type ServerInfo,
} from './info-parser';
export { answeredWithError, type ReachableRedisObservation, type RedisObservation, type ReplicationPosition, type UnreachableRedisObservation } from './observation';
export { probe } from './probe';
export {
  configGet,
  configSet,
  makeReplicaOf,
  promoteToPrimary,
  type MakeReplicaOfOptions,
  type MakeReplicaOfOutcome,
  type RedisConfigParameters,
} from './commands';
export { switchover, type SwitchoverMethod, type SwitchoverRequest, type SwitchoverResult, type SwitchoverStep } from './switchover';
export type { SwitchoverAbortCode } from './switchover-readiness';
export { RedisOperationAbortedError } from './operation-aborted';
export {
  waitForReplicaOffset,
  type WaitForReplicaOffsetOptions,
  type WaitForReplicaOffsetResult,
} from './wait-for-replica-offset';
export { observationFromInfo } from './observation-from-info';
