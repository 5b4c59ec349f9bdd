import type { RedisConnectionPool } from './connection-pool';
import { RedisCommandError } from './errors';
import type { RedisEndpoint } from './endpoint';

/**
 * Makes `password` valid for the default user *in addition to* the ones it has (`ACL SETUSER default >password`,
 * Redis 6.2+ users hold several passwords) and makes it the one this server presents to its primary
 * (`masterauth`). The first phase of a rotation: old and new both work until {@link removePassword}.
 */
export async function addPassword(pool: RedisConnectionPool, endpoint: RedisEndpoint, password: string): Promise<void> {
  await pool.run(endpoint, 'ACL SETUSER', async (client) => {
    await client.call('ACL', 'SETUSER', 'default', 'on', `>${password}`);
    await client.config('SET', 'masterauth', password);
  });
}

/** Removes `password` from the default user; a password it does not have is not an error (a restarted pod). */
export async function removePassword(pool: RedisConnectionPool, endpoint: RedisEndpoint, password: string): Promise<void> {
  try {
    await pool.run(endpoint, 'ACL SETUSER', (client) => client.call('ACL', 'SETUSER', 'default', `<${password}`));
  } catch (error) {
    if (error instanceof RedisCommandError && /does not exist/i.test(error.reply)) return;
    throw error;
  }
}
