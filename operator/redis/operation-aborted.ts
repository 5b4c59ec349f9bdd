/**
 * A Redis operation stopped because its signal was aborted (typically: the controller lost its lease). Thrown
 * *instead of* sending the next command, so a controller that is no longer leader changes nothing more.
 *
 * Named `AbortError` like the errors `fetch` and `timers/promises` throw, so callers that already recognise an
 * abort by name treat it alike; `cause` is the signal's reason.
 */
export class RedisOperationAbortedError extends Error {
  override readonly name = 'AbortError';

  constructor(
    /** The command that was not sent, e.g. `REPLICAOF` towards `10.0.0.5:6379`. */
    readonly command: string,
    readonly address: string,
    options?: { cause?: unknown },
  ) {
    super(`aborted before ${command} on ${address}`, options);
  }
}

/** Throws {@link RedisOperationAbortedError} when `signal` is aborted; the check every command makes first. */
export function throwIfAborted(signal: AbortSignal | undefined, command: string, address: string): void {
  if (signal?.aborted) {
    throw new RedisOperationAbortedError(command, address, { cause: signal.reason });
  }
}
