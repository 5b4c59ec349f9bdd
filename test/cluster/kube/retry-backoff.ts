/** Bounds of an exponential back-off. */
export interface BackoffSettings {
  readonly initialMilliseconds: number;
  readonly maxMilliseconds: number;
}

/**
 * The delay before retry number `attempt` (1-based): `initial × 2^(attempt-1)`, capped, with ±20 % jitter so that
 * many callers failing together (a burst of bindings, every pod's status) do not retry in lockstep.
 */
export function backoffDelayMilliseconds(settings: BackoffSettings, attempt: number, random: () => number = Math.random): number {
  const exponential = Math.min(settings.maxMilliseconds, settings.initialMilliseconds * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential * (0.8 + 0.4 * random()));
}

/** Resolves after `milliseconds`. */
export function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
