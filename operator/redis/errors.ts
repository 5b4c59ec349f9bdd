import { endpointAddress, type RedisEndpoint } from './endpoint';

/**
 * The server could not be reached or did not answer in time: connection refused, connect timeout, command
 * timeout (for example a SIGSTOPped process whose kernel still accepts TCP connections), or a connection
 * closed mid-command. Transient by nature: the caller observes again later.
 */
export class RedisUnreachableError extends Error {
  override readonly name = 'RedisUnreachableError';

  constructor(
    readonly address: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`redis ${address} unreachable: ${reason}`, options);
  }

  static of(endpoint: RedisEndpoint, cause: unknown): RedisUnreachableError {
    return new RedisUnreachableError(endpointAddress(endpoint), describe(cause), { cause });
  }
}

/** The server answered, with an error reply (`-ERR ...`, `-NOAUTH ...`, `-LOADING ...`). */
export class RedisCommandError extends Error {
  override readonly name = 'RedisCommandError';

  constructor(
    readonly address: string,
    readonly command: string,
    readonly reply: string,
    options?: { cause?: unknown },
  ) {
    super(`redis ${address} rejected ${command}: ${reply}`, options);
  }

  /** The first word of the error reply, e.g. `ERR`, `LOADING`, `NOAUTH`, `READONLY`. */
  get code(): string {
    return this.reply.split(' ', 1)[0] ?? '';
  }
}

function describe(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
