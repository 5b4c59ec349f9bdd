import Redis from 'ioredis';

/**
 * Runs `use` with a Redis client connected to `host:port` (no retries, no offline queue: a dead server fails
 * fast instead of hanging the test) and closes it afterwards.
 */
export async function withRedis<T>(host: string, use: (client: Redis) => Promise<T>, port = 6379): Promise<T> {
  const client = new Redis({ host, port, lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null, connectTimeout: 2000, commandTimeout: 2000 });
  try {
    await client.connect();
    return await use(client);
  } finally {
    client.disconnect();
  }
}

/** PING at `host:port`; resolves `'PONG'` or rejects. */
export function pingRedis(host: string, port = 6379): Promise<string> {
  return withRedis(host, (client) => client.ping(), port);
}
