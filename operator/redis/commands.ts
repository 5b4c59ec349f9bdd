import type { RedisConnectionPool } from './connection-pool';
import { DEFAULT_REDIS_PORT, type RedisEndpoint } from './endpoint';
import { pipelineReplies } from './pipeline-replies';

/** Options of {@link makeReplicaOf}. */
export interface MakeReplicaOfOptions {
  /**
   * When the server already follows this primary, drop its link so it reconnects (`CLIENT KILL TYPE master`).
   * `REPLICAOF` to the current primary is a no-op in Redis, so this is the only way to restart a link that
   * stays down.
   * @default false
   */
  readonly reconnectIfAlreadyFollowing?: boolean;
}

/** What {@link makeReplicaOf} changed. */
export type MakeReplicaOfOutcome = 'repointed' | 'already-following' | 'reconnected';

/**
 * `REPLICAOF primaryHost primaryPort`. Also the fencing step for a stale primary: it stops accepting writes
 * (replicas are read-only) as soon as the command returns, before it resyncs.
 */
export async function makeReplicaOf(
  pool: RedisConnectionPool,
  endpoint: RedisEndpoint,
  primaryHost: string,
  primaryPort: number = DEFAULT_REDIS_PORT,
  options: MakeReplicaOfOptions = {},
): Promise<MakeReplicaOfOutcome> {
  return pool.run(endpoint, 'REPLICAOF', async (client) => {
    const reply = String(await client.call('REPLICAOF', primaryHost, String(primaryPort)));
    if (!reply.startsWith('OK Already connected')) {
      return 'repointed';
    }
    if (!options.reconnectIfAlreadyFollowing) {
      return 'already-following';
    }
    await client.call('CLIENT', 'KILL', 'TYPE', 'master');
    return 'reconnected';
  });
}

/** `REPLICAOF NO ONE`: the server keeps its data and offset, starts a new replication id and accepts writes. */
export async function promoteToPrimary(pool: RedisConnectionPool, endpoint: RedisEndpoint): Promise<void> {
  await pool.run(endpoint, 'REPLICAOF NO ONE', (client) => client.call('REPLICAOF', 'NO', 'ONE'));
}

/** Configuration values as CONFIG SET takes them. */
export type RedisConfigParameters = Readonly<Record<string, string | number>>;

/**
 * Sets each parameter live with its own `CONFIG SET` (pipelined, one round trip) so it works on servers
 * older than 7.0, which take one parameter per call. Not atomic: on an error reply the earlier parameters
 * stay applied and the first error is thrown.
 */
export async function configSet(
  pool: RedisConnectionPool,
  endpoint: RedisEndpoint,
  parameters: RedisConfigParameters,
): Promise<void> {
  const entries = Object.entries(parameters);
  if (entries.length === 0) {
    return;
  }
  await pool.run(endpoint, 'CONFIG SET', async (client) => {
    const pipeline = client.pipeline();
    for (const [name, value] of entries) {
      pipeline.config('SET', name, String(value));
    }
    const failed = pipelineReplies(await pipeline.exec(), entries.length).find((reply) => reply.error);
    if (failed?.error !== undefined) {
      throw failed.error;
    }
  });
}

/** `CONFIG GET` for each name (glob patterns allowed), merged into one `name -> value` record. */
export async function configGet(
  pool: RedisConnectionPool,
  endpoint: RedisEndpoint,
  names: readonly string[],
): Promise<Record<string, string>> {
  return pool.run(endpoint, 'CONFIG GET', async (client) => {
    const values: Record<string, string> = {};
    for (const name of names) {
      const pairs = (await client.config('GET', name)) as string[];
      for (let index = 0; index + 1 < pairs.length; index += 2) {
        values[pairs[index]!] = pairs[index + 1]!;
      }
    }
    return values;
  });
}
