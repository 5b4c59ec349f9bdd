/**
 * Where one Redis server listens, and how to authenticate to it.
 *
 * The password travels with the endpoint (not with the pool) because one controller talks to many clusters,
 * each with its own generated password.
 */
export interface RedisEndpoint {
  readonly host: string;
  /** @default 6379 */
  readonly port?: number;
  /** `requirepass` of the server. @default - no AUTH is sent */
  readonly password?: string;
}

/** The Redis port every redkite pod listens on. */
export const DEFAULT_REDIS_PORT = 6379;

/** `host:port`, the identity of a server in pools, errors and logs (never includes the password). */
export function endpointAddress(endpoint: RedisEndpoint): string {
  return `${endpoint.host}:${endpoint.port ?? DEFAULT_REDIS_PORT}`;
}
