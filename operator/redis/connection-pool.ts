import Redis from 'ioredis';
import { DEFAULT_REDIS_PORT, endpointAddress, type RedisEndpoint } from './endpoint';
import { RedisCommandError, RedisUnreachableError } from './errors';

/** Tuning for {@link RedisConnectionPool}. */
export interface RedisConnectionPoolOptions {
  /**
   * Time allowed for the TCP connect. Pods live on the cluster network, so a healthy one answers in
   * well under a millisecond; anything slower is treated as unreachable.
   * @default 500
   */
  readonly connectTimeoutMilliseconds?: number;
  /**
   * Time allowed for one command (or one pipelined command) to answer. This is what bounds a call to a
   * frozen (SIGSTOPped) process: its kernel still completes the TCP handshake, so only the reply is missing.
   * @default 500
   */
  readonly commandTimeoutMilliseconds?: number;
}

interface PooledConnection {
  readonly password: string | undefined;
  readonly client: Redis;
  readonly connected: Promise<Redis>;
}

/**
 * ioredis reports a refused AUTH (WRONGPASS, NOAUTH) only as an `error` event and then closes the socket, so
 * the command itself fails with a bare "Connection is closed". The refusal is kept here to report it instead.
 */
const refusedHandshakes = new WeakMap<Redis, Error>();

/**
 * One admin connection per `host:port`, created on first use and recreated on the next use after it failed.
 *
 * ioredis' own resilience (offline queue, retries, reconnect loops, ready check) is switched off on purpose:
 * the controller probes many servers on a short period and must get a fast, definite answer from each, then
 * decide itself. A reconnect loop per dead pod would only add load and hide the failure.
 */
export class RedisConnectionPool {
  private readonly connectTimeoutMilliseconds: number;
  private readonly commandTimeoutMilliseconds: number;
  private readonly connections = new Map<string, PooledConnection>();
  private closed = false;

  constructor(options: RedisConnectionPoolOptions = {}) {
    this.connectTimeoutMilliseconds = options.connectTimeoutMilliseconds ?? 500;
    this.commandTimeoutMilliseconds = options.commandTimeoutMilliseconds ?? 500;
  }

  /**
   * Runs `operation` with a connected client for `endpoint` and maps its failure to a typed error:
   * an error reply (including a refused AUTH) becomes {@link RedisCommandError}; a failed connect, a timeout
   * or a closed connection becomes {@link RedisUnreachableError} and the connection is dropped so the next
   * call starts afresh. Any other error is a bug in `operation` and propagates unchanged.
   *
   * @param commandName named in errors, e.g. `REPLICAOF`.
   */
  async run<T>(endpoint: RedisEndpoint, commandName: string, operation: (client: Redis) => Promise<T>): Promise<T> {
    const address = endpointAddress(endpoint);
    let client: Redis;
    try {
      client = await this.connection(endpoint);
    } catch (error) {
      throw handshakeFailure(endpoint, error);
    }
    try {
      return await operation(client);
    } catch (error) {
      if (isReplyError(error)) {
        throw new RedisCommandError(address, commandName, error.message, { cause: error });
      }
      if (!isConnectionFailure(error)) {
        throw error;
      }
      this.evict(address, client);
      const refused = refusedHandshakes.get(client);
      if (refused !== undefined) {
        throw new RedisCommandError(address, 'AUTH', refused.message, { cause: refused });
      }
      throw RedisUnreachableError.of(endpoint, error);
    }
  }

  /** Disconnects every connection; later calls to {@link run} fail. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.connections.values()];
    this.connections.clear();
    for (const { client } of all) {
      client.disconnect();
    }
  }

  /** Number of pooled connections, for metrics and tests. */
  get size(): number {
    return this.connections.size;
  }

  private connection(endpoint: RedisEndpoint): Promise<Redis> {
    if (this.closed) {
      return Promise.reject(new Error('connection pool is closed'));
    }
    const address = endpointAddress(endpoint);
    const pooled = this.connections.get(address);
    if (pooled !== undefined) {
      const usable = pooled.password === endpoint.password && !['end', 'close'].includes(pooled.client.status);
      if (usable) {
        return pooled.connected;
      }
      this.evict(address, pooled.client);
    }
    return this.open(address, endpoint);
  }

  private open(address: string, endpoint: RedisEndpoint): Promise<Redis> {
    const client = new Redis({
      host: endpoint.host,
      port: endpoint.port ?? DEFAULT_REDIS_PORT,
      password: endpoint.password,
      connectTimeout: this.connectTimeoutMilliseconds,
      commandTimeout: this.commandTimeoutMilliseconds,
      lazyConnect: true,
      enableOfflineQueue: false,
      enableReadyCheck: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      reconnectOnError: () => false,
      autoResubscribe: false,
      connectionName: 'redkite-admin',
    });
    // Failures surface through the rejected command or connect() that caused them; this listener keeps
    // ioredis from printing "Unhandled error event" for the same failure, and remembers a refused AUTH.
    client.on('error', (error: unknown) => {
      if (isReplyError(error)) {
        refusedHandshakes.set(client, error);
      }
    });
    const connected = client.connect().then(
      () => client,
      (error: unknown) => {
        this.evict(address, client);
        throw refusedHandshakes.get(client) ?? error;
      },
    );
    this.connections.set(address, { password: endpoint.password, client, connected });
    return connected;
  }

  private evict(address: string, client: Redis): void {
    if (this.connections.get(address)?.client === client) {
      this.connections.delete(address);
    }
    client.disconnect();
  }
}

function handshakeFailure(endpoint: RedisEndpoint, error: unknown): RedisCommandError | RedisUnreachableError {
  if (isReplyError(error)) {
    return new RedisCommandError(endpointAddress(endpoint), 'AUTH', error.message, { cause: error });
  }
  return RedisUnreachableError.of(endpoint, error);
}

/**
 * Errors that say the server did not answer: socket errors (they carry a `code` such as ECONNRESET) and
 * ioredis' own messages for a timed-out command or a closed stream. Anything else is a bug in the caller
 * and propagates unchanged.
 */
function isConnectionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) {
    return false;
  }
  if (typeof (error as NodeJS.ErrnoException).code === 'string') {
    return true;
  }
  return CONNECTION_FAILURE_MESSAGES.some((message) => error.message.startsWith(message));
}

const CONNECTION_FAILURE_MESSAGES = [
  'Command timed out',
  'Connection is closed',
  "Stream isn't writeable",
  'connect ETIMEDOUT',
  'read ECONNRESET',
];

function isReplyError(error: unknown): error is Error {
  return error instanceof Error && error.name === 'ReplyError';
}
