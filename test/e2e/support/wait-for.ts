/** Options of {@link waitFor}. */
export interface WaitForOptions {
  /** What is awaited, for the timeout message (e.g. "pod redis-0 Ready"). */
  readonly description: string;
  /** @default 60_000 */
  readonly timeoutMs?: number;
  /** @default 250 */
  readonly intervalMs?: number;
}

/** A condition did not hold before its deadline. */
export class WaitTimeoutError extends Error {
  override readonly name = 'WaitTimeoutError';
}

/**
 * Polls `condition` until it returns a value other than `undefined`, `null` or `false`, and resolves that value.
 * Errors thrown by the condition count as "not yet" (the last one is attached as `cause` on timeout), so a
 * condition may simply read an object that does not exist yet. The only way tests wait: never bare sleeps.
 */
export async function waitFor<T>(condition: () => Promise<T | undefined | null | false> | T | undefined | null | false, options: WaitForOptions): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  let lastValue: unknown;
  for (;;) {
    try {
      const value = await condition();
      lastValue = value;
      if (value !== undefined && value !== null && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const detail = lastError ? `; last error: ${(lastError as Error).message}` : `; last value: ${JSON.stringify(lastValue)}`;
      throw new WaitTimeoutError(`timed out after ${timeoutMs} ms waiting for ${options.description}${detail}`, { cause: lastError });
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(options.intervalMs ?? 250, Math.max(0, deadline - Date.now()))));
  }
}
