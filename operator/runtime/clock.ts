/** An opaque timer handle, as returned by {@link Clock.setTimeout}. */
export type TimerHandle = ReturnType<typeof setTimeout>;

/**
 * Time, injectable so queue, informer and leader-election logic can run under fake timers. The default reads the
 * globals at call time, which is what jest's modern fake timers replace.
 */
export interface Clock {
  /** Wall-clock time, for timestamps other processes read (a Lease's renewTime, Events). */
  nowMs(): number;
  /**
   * Monotonic time, for every duration and deadline (invariant I7 in docs/failover.md): a wall-clock jump neither
   * shortens a lease nor fires a timer early. Fake clocks that do not model it fall back to `nowMs`.
   */
  monotonicMs?(): number;
  setTimeout(callback: () => void, delayMs: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export const systemClock: Clock = {
  nowMs: () => Date.now(),
  monotonicMs: () => performance.now(),
  setTimeout: (callback, delayMs) => setTimeout(callback, delayMs),
  clearTimeout: (handle) => clearTimeout(handle),
};

/**
 * Resolves after `delayMs`, or early (without throwing) when `signal` aborts; returns whether the full delay elapsed.
 */
export function sleep(clock: Clock, delayMs: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clock.clearTimeout(handle);
      resolve(false);
    };
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, Math.max(0, delayMs));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Monotonic milliseconds of a clock (its wall clock when it has no monotonic one, as fake clocks do). */
export function monotonicNow(clock: Clock): number {
  return clock.monotonicMs?.() ?? clock.nowMs();
}
