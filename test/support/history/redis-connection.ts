import Redis from 'ioredis';
import { endpointAddress, type RedisEndpoint } from '../../../operator/redis';

/**
 * Opens one connection that never reconnects, never queues and never retries on its own: the history writer and
 * the ROLE sampler decide themselves when to open a new one, so each connection reaches exactly one server (what a
 * kube-proxy'd flow does) and a frozen server can hold up nothing longer than `timeoutMilliseconds`.
 * The ready check is off so a loading server answers -LOADING instead of delaying the connection.
 */
export async function openConnection(
  endpoint: RedisEndpoint,
  timeoutMilliseconds: number,
  commandTimeoutMilliseconds = timeoutMilliseconds,
): Promise<Redis> {
  const client = new Redis({
    host: endpoint.host,
    port: endpoint.port ?? 6379,
    password: endpoint.password,
    lazyConnect: true,
    enableOfflineQueue: false,
    enableReadyCheck: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    retryStrategy: () => null,
    connectTimeout: timeoutMilliseconds,
    commandTimeout: commandTimeoutMilliseconds,
  });
  // Failures surface as rejected commands; the 'error' event would otherwise be an unhandled EventEmitter error.
  client.on('error', () => undefined);
  try {
    // AUTH runs as part of connect(): a frozen server accepts the TCP connection and never answers it.
    await withDeadline(client.connect(), timeoutMilliseconds, `connecting to ${endpointAddress(endpoint)}`);
  } catch (error) {
    client.disconnect();
    throw error;
  }
  return client;
}

/** Whether a connection opened by {@link openConnection} can still carry commands. */
export function isOpen(client: Redis): boolean {
  return client.status === 'ready' || client.status === 'connect';
}

/** The address of the server end of the connection (`CLIENT INFO` laddr): the pod behind a Service's proxy. */
export async function serverAddressOf(client: Redis, fallback: string): Promise<string> {
  const info = String(await client.call('CLIENT', 'INFO'));
  return /(?:^| )laddr=(\S+)/.exec(info)?.[1] ?? fallback;
}

/** The error of a deadline that passed. */
export class DeadlineError extends Error {
  override readonly name = 'DeadlineError';
}

/** Rejects with a {@link DeadlineError} when `promise` has not settled within `milliseconds`. */
export function withDeadline<T>(promise: Promise<T>, milliseconds: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(`${what} timed out after ${milliseconds} ms`)), milliseconds);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** The message of anything thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
