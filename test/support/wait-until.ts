import { setTimeout as delay } from 'node:timers/promises';

/** Options of {@link waitUntil}. */
export interface WaitUntilOptions {
  /** @default 10000 */
  readonly timeoutMilliseconds?: number;
  /** @default 20 */
  readonly pollIntervalMilliseconds?: number;
}

/**
 * Polls `condition` until it returns a value other than `undefined`/`false`, and returns that value; fails
 * with `description` and the last error seen when the deadline passes. The test-side replacement for sleeps.
 */
export async function waitUntil<T>(
  description: string,
  condition: () => T | undefined | false | Promise<T | undefined | false>,
  options: WaitUntilOptions = {},
): Promise<T> {
  const timeoutMilliseconds = options.timeoutMilliseconds ?? 10_000;
  const deadline = Date.now() + timeoutMilliseconds;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value !== undefined && value !== false) {
        return value;
      }
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMilliseconds} ms waiting until ${description}`, { cause: lastError });
    }
    await delay(options.pollIntervalMilliseconds ?? 20);
  }
}
