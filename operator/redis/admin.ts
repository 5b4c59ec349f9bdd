import {
  configGet,
  configSet,
  makeReplicaOf,
  promoteToPrimary,
  type MakeReplicaOfOptions,
  type MakeReplicaOfOutcome,
  type RedisConfigParameters,
} from './commands';
import { RedisConnectionPool, type RedisConnectionPoolOptions } from './connection-pool';
import { DEFAULT_REDIS_PORT, type RedisEndpoint } from './endpoint';
import type { RedisObservation } from './observation';
import { disconnectClients } from './client-commands';
import { addPassword, removePassword } from './password-commands';
import { probe } from './probe';
import { switchover, type SwitchoverRequest, type SwitchoverResult } from './switchover';
import {
  waitForReplicaOffset,
  type WaitForReplicaOffsetOptions,
  type WaitForReplicaOffsetResult,
} from './wait-for-replica-offset';

/** What the reconciler needs from Redis; an interface so its unit suite runs against a fake. */
export type RedisAdministration = Pick<RedisAdmin, 'probe' | 'makeReplicaOf' | 'promoteToPrimary' | 'configSet' | 'switchover' | 'addPassword' | 'removePassword' | 'disconnectClients'>;

/**
 * The Redis administration surface the controller uses, over one {@link RedisConnectionPool}.
 * Knows nothing about Kubernetes: endpoints are addresses.
 */
export class RedisAdmin {
  readonly pool: RedisConnectionPool;

  constructor(options: RedisConnectionPoolOptions = {}) {
    this.pool = new RedisConnectionPool(options);
  }

  probe(endpoint: RedisEndpoint): Promise<RedisObservation> {
    return probe(this.pool, endpoint);
  }

  makeReplicaOf(
    endpoint: RedisEndpoint,
    primaryHost: string,
    primaryPort: number = DEFAULT_REDIS_PORT,
    options?: MakeReplicaOfOptions,
  ): Promise<MakeReplicaOfOutcome> {
    return makeReplicaOf(this.pool, endpoint, primaryHost, primaryPort, options);
  }

  promoteToPrimary(endpoint: RedisEndpoint): Promise<void> {
    return promoteToPrimary(this.pool, endpoint);
  }

  configSet(endpoint: RedisEndpoint, parameters: RedisConfigParameters): Promise<void> {
    return configSet(this.pool, endpoint, parameters);
  }

  configGet(endpoint: RedisEndpoint, names: readonly string[]): Promise<Record<string, string>> {
    return configGet(this.pool, endpoint, names);
  }

  /** Closes every application connection (a demoted primary's clients reconnect through the Service). */
  disconnectClients(endpoint: RedisEndpoint): Promise<void> {
    return disconnectClients(this.pool, endpoint);
  }

  /** Rotation phase one: `password` becomes valid beside the current ones, and the one presented to the primary. */
  addPassword(endpoint: RedisEndpoint, password: string): Promise<void> {
    return addPassword(this.pool, endpoint, password);
  }

  /** Rotation phase two: `password` stops being valid. */
  removePassword(endpoint: RedisEndpoint, password: string): Promise<void> {
    return removePassword(this.pool, endpoint, password);
  }

  switchover(request: SwitchoverRequest): Promise<SwitchoverResult> {
    return switchover(this.pool, request);
  }

  waitForReplicaOffset(
    endpoint: RedisEndpoint,
    targetOffset: number,
    options?: WaitForReplicaOffsetOptions,
  ): Promise<WaitForReplicaOffsetResult> {
    return waitForReplicaOffset(this.pool, endpoint, targetOffset, options);
  }

  /** Closes every connection. */
  close(): Promise<void> {
    return this.pool.close();
  }
}
