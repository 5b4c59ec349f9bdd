import type { RedisConnectionPool } from './connection-pool';
import type { RedisEndpoint } from './endpoint';
import { RedisCommandError, RedisUnreachableError } from './errors';
import type { RedisObservation } from './observation';
import { observationFromInfo } from './observation-from-info';
import { pipelineReplies } from './pipeline-replies';

/**
 * Observes one server in a single round trip (PING, INFO server/replication/persistence/keyspace and
 * CONFIG GET min-replicas-to-write, pipelined). Never throws for a server problem: an unreachable or
 * refusing server is an observation too.
 */
export async function probe(pool: RedisConnectionPool, endpoint: RedisEndpoint): Promise<RedisObservation> {
  try {
    return await pool.run(endpoint, 'probe', async (client) => {
      const replies = await client
        .pipeline()
        .ping()
        .info('server')
        .info('replication')
        .info('persistence')
        .config('GET', 'min-replicas-to-write')
        .info('keyspace')
        .exec();
      const [ping, server, replication, persistence, minReplicas, keyspace] = pipelineReplies(replies, 6);
      // A server loading its data set answers PING with -LOADING but still answers INFO: that is an
      // observation (reachable, loading), not a failure.
      if (ping.error !== undefined && !ping.error.message.startsWith('LOADING')) {
        throw ping.error;
      }
      return observationFromInfo(
        expectString(server),
        expectString(replication),
        expectString(persistence),
        minReplicas.error === undefined ? minReplicas.value : undefined,
        expectString(keyspace),
      );
    });
  } catch (error) {
    if (error instanceof RedisUnreachableError || error instanceof RedisCommandError) {
      return { reachable: false, error };
    }
    throw error;
  }
}

function expectString(reply: { error?: Error; value?: unknown }): string {
  if (reply.error !== undefined) {
    throw reply.error;
  }
  if (typeof reply.value !== 'string') {
    throw new Error(`expected a text reply, got ${typeof reply.value}`);
  }
  return reply.value;
}
