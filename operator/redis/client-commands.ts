import type { RedisConnectionPool } from './connection-pool';
import type { RedisEndpoint } from './endpoint';

/**
 * `CLIENT KILL TYPE normal` (the caller is skipped): closes every application connection, as Sentinel does to a
 * demoted primary. Behind kube-proxy a client keeps its established flow to a pod after the Service moved, so
 * without this it would keep talking to the old primary and get `-READONLY` until something closed the connection.
 */
export async function disconnectClients(pool: RedisConnectionPool, endpoint: RedisEndpoint): Promise<void> {
  await pool.run(endpoint, 'CLIENT KILL', (client) => client.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes'));
}
