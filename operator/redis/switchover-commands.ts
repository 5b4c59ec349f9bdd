import type Redis from 'ioredis';
import type { RedisConnectionPool } from './connection-pool';
import { DEFAULT_REDIS_PORT, endpointAddress, type RedisEndpoint } from './endpoint';
import { clientsBlockedInWait } from './client-list-parser';
import { parseReplicationInfo, type ReplicationInfo } from './info-parser';
import { throwIfAborted } from './operation-aborted';
import { pipelineReplies } from './pipeline-replies';

/** Where a server is told to replicate from. */
export interface ReplicationSource {
  readonly host: string;
  readonly port: number;
}

/** The address a server follows in {@link SwitchoverCommands.detach}: nothing listens there. */
export const DETACHED_PRIMARY: ReplicationSource = { host: '127.0.0.1', port: 1 };

/** The commands a switchover recipe needs; {@link SwitchoverCommands} on real servers, a fake in unit tests. */
export type SwitchoverCommandSet = Pick<SwitchoverCommands, keyof SwitchoverCommands>;

/**
 * The commands a switchover sends, each one round trip, each preceded by the abort check: once `signal` is
 * aborted not a single further command leaves this process. Pipelines count as one command for the check, since
 * they are sent together.
 */
export class SwitchoverCommands {
  constructor(
    private readonly pool: RedisConnectionPool,
    private readonly signal: AbortSignal | undefined,
  ) {}

  /** `INFO replication`, parsed. */
  replication(endpoint: RedisEndpoint): Promise<ReplicationInfo> {
    return this.run(endpoint, 'INFO replication', async (client) => parseReplicationInfo(await client.info('replication')));
  }

  /**
   * `CLIENT PAUSE <ms> WRITE` then `INFO replication` in one round trip. Redis processes the pipeline in order, so
   * the offset read is the last one any write reached: later write commands wait in the pause.
   */
  pauseWrites(endpoint: RedisEndpoint, pauseMilliseconds: number): Promise<ReplicationInfo> {
    return this.run(endpoint, 'CLIENT PAUSE WRITE', async (client) => {
      const [pause, info] = pipelineReplies(
        await client.pipeline().call('CLIENT', 'PAUSE', String(pauseMilliseconds), 'WRITE').info('replication').exec(),
        2,
      );
      return parseReplicationInfo(textOf(pause, info));
    });
  }

  /** Ids of the clients blocked in `WAIT` (`CLIENT LIST TYPE normal`). */
  clientsBlockedInWait(endpoint: RedisEndpoint): Promise<string[]> {
    return this.run(endpoint, 'CLIENT LIST', async (client) => clientsBlockedInWait(String(await client.call('CLIENT', 'LIST', 'TYPE', 'normal'))));
  }

  /** `CLIENT UNPAUSE`. */
  async unpause(endpoint: RedisEndpoint): Promise<void> {
    await this.run(endpoint, 'CLIENT UNPAUSE', (client) => client.call('CLIENT', 'UNPAUSE'));
  }

  /** `REPLICAOF host port`. */
  async replicaOf(endpoint: RedisEndpoint, source: ReplicationSource): Promise<void> {
    await this.run(endpoint, 'REPLICAOF', (client) => client.call('REPLICAOF', source.host, String(source.port)));
  }

  /**
   * Makes the server a replica of {@link DETACHED_PRIMARY} and reads its replication state in the same round trip.
   * It becomes read-only at once, keeps its data, replication id and offset (so it can later continue from another
   * server with a partial resync), and — being a replica — adds nothing more to the stream its own replicas receive.
   *
   * Redis closes the connection of every client blocked in a command when a primary turns replica; the clients in
   * `unblockWaitClients` (blocked in `WAIT`) are first released with `CLIENT UNBLOCK <id> TIMEOUT` — WAIT returns the
   * replicas that acknowledged so far — so they keep their connection and only learn of the demotion from the
   * `-READONLY` of their next write, instead of reconnecting.
   */
  detach(endpoint: RedisEndpoint, unblockWaitClients: readonly string[] = []): Promise<ReplicationInfo> {
    return this.run(endpoint, 'REPLICAOF (detach)', async (client) => {
      const pipeline = client.pipeline();
      for (const id of unblockWaitClients) pipeline.call('CLIENT', 'UNBLOCK', id, 'TIMEOUT');
      pipeline.call('REPLICAOF', DETACHED_PRIMARY.host, String(DETACHED_PRIMARY.port)).info('replication');
      // A client that finished WAIT meanwhile answers 0 to CLIENT UNBLOCK: nothing to report.
      const replies = pipelineReplies(await pipeline.exec(), unblockWaitClients.length + 2).slice(unblockWaitClients.length);
      return parseReplicationInfo(textOf(replies[0]!, replies[1]!));
    });
  }

  /** `REPLICAOF NO ONE`: keeps data and offset, starts a new replication id, accepts writes. */
  async promote(endpoint: RedisEndpoint): Promise<void> {
    await this.run(endpoint, 'REPLICAOF NO ONE', (client) => client.call('REPLICAOF', 'NO', 'ONE'));
  }

  /**
   * `REPLICAOF host port` then `CLIENT UNPAUSE`, pipelined: the writes held by the pause are answered `-READONLY`
   * the moment they run, and the unpause happens even when REPLICAOF is refused (its error is thrown afterwards).
   */
  async repointAndUnpause(endpoint: RedisEndpoint, source: ReplicationSource): Promise<void> {
    await this.run(endpoint, 'REPLICAOF + CLIENT UNPAUSE', async (client) => {
      const replies = pipelineReplies(
        await client.pipeline().call('REPLICAOF', source.host, String(source.port)).call('CLIENT', 'UNPAUSE').exec(),
        2,
      );
      throwFirstError(replies);
    });
  }

  /** `REPLICAOF NO ONE` then `CLIENT UNPAUSE`, pipelined: gives a detached, paused old primary its role back. */
  async restoreAndUnpause(endpoint: RedisEndpoint): Promise<void> {
    await this.run(endpoint, 'REPLICAOF NO ONE + CLIENT UNPAUSE', async (client) => {
      throwFirstError(pipelineReplies(await client.pipeline().call('REPLICAOF', 'NO', 'ONE').call('CLIENT', 'UNPAUSE').exec(), 2));
    });
  }

  /** `FAILOVER TO host port TIMEOUT ms` (Redis 6.2+). */
  async failoverTo(endpoint: RedisEndpoint, target: RedisEndpoint, timeoutMilliseconds: number): Promise<void> {
    const port = String(target.port ?? DEFAULT_REDIS_PORT);
    await this.run(endpoint, 'FAILOVER', (client) =>
      client.call('FAILOVER', 'TO', target.host, port, 'TIMEOUT', String(timeoutMilliseconds)),
    );
  }

  private run<T>(endpoint: RedisEndpoint, command: string, operation: (client: Redis) => Promise<T>): Promise<T> {
    throwIfAborted(this.signal, command, endpointAddress(endpoint));
    return this.pool.run(endpoint, command, operation);
  }
}

/** The text reply of a `[command, INFO]` pipeline, throwing the command's error reply first. */
function textOf(command: { error?: Error }, info: { error?: Error; value?: unknown }): string {
  throwFirstError([command, info]);
  if (typeof info.value !== 'string') {
    throw new Error(`expected a text reply, got ${typeof info.value}`);
  }
  return info.value;
}

function throwFirstError(replies: ReadonlyArray<{ error?: Error }>): void {
  const failed = replies.find((reply) => reply.error !== undefined);
  if (failed?.error !== undefined) {
    throw failed.error;
  }
}
