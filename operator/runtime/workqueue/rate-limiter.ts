import { Clock, systemClock } from '../clock';

/**
 * Decides how long an item waits before it is queued again (client-go's `workqueue.TypedRateLimiter`).
 */
export interface RateLimiter {
  /** The delay for this item's next attempt; counts as one more failure for per-item limiters. */
  whenMs(item: string): number;
  /** Forget the item's failure history (called after a successful reconcile). */
  forget(item: string): void;
  /** How many times the item has been rate-limited since it was last forgotten. */
  retries(item: string): number;
}

/** Options of {@link ItemExponentialFailureRateLimiter}. */
export interface ItemExponentialFailureRateLimiterOptions {
  /**
   * Delay after the first failure; doubles after each further failure.
   * @default 5
   */
  readonly baseDelayMs?: number;
  /**
   * Upper bound of the per-item delay.
   * @default 1000000 (1000 s, client-go)
   */
  readonly maxDelayMs?: number;
}

/** Per-item exponential backoff: 5 ms, 10 ms, 20 ms, ... up to 1000 s; reset by {@link forget}. */
export class ItemExponentialFailureRateLimiter implements RateLimiter {
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly failures = new Map<string, number>();

  constructor(options: ItemExponentialFailureRateLimiterOptions = {}) {
    this.baseDelayMs = options.baseDelayMs ?? 5;
    this.maxDelayMs = options.maxDelayMs ?? 1_000_000;
  }

  whenMs(item: string): number {
    const failures = this.failures.get(item) ?? 0;
    this.failures.set(item, failures + 1);
    // Cap the exponent so 2 ** n stays finite for items that fail for days.
    return Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** Math.min(failures, 62));
  }

  forget(item: string): void {
    this.failures.delete(item);
  }

  retries(item: string): number {
    return this.failures.get(item) ?? 0;
  }
}

/** Options of {@link TokenBucketRateLimiter}. */
export interface TokenBucketRateLimiterOptions {
  /**
   * Sustained rate, tokens per second.
   * @default 10 (client-go's default controller rate limiter)
   */
  readonly queriesPerSecond?: number;
  /**
   * Bucket size: how many items may pass at once after a quiet period.
   * @default 100
   */
  readonly burst?: number;
  /** @default systemClock */
  readonly clock?: Clock;
}

/**
 * A global token bucket over all items, with reservations like Go's `rate.Limiter.Reserve()`: every call takes a
 * token, possibly one that only exists in the future, and returns how long to wait for it.
 */
export class TokenBucketRateLimiter implements RateLimiter {
  private readonly tokensPerMs: number;
  private readonly burst: number;
  private readonly clock: Clock;
  private tokens: number;
  private lastRefillMs: number;

  constructor(options: TokenBucketRateLimiterOptions = {}) {
    this.tokensPerMs = (options.queriesPerSecond ?? 10) / 1000;
    this.burst = options.burst ?? 100;
    this.clock = options.clock ?? systemClock;
    this.tokens = this.burst;
    this.lastRefillMs = this.clock.nowMs();
  }

  whenMs(_item?: string): number {
    const nowMs = this.clock.nowMs();
    this.tokens = Math.min(this.burst, this.tokens + (nowMs - this.lastRefillMs) * this.tokensPerMs);
    this.lastRefillMs = nowMs;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil(-this.tokens / this.tokensPerMs);
  }

  forget(): void {
    // The bucket is global: one item's success does not give tokens back.
  }

  retries(): number {
    return 0;
  }
}

/** The longest delay of several limiters (client-go's `MaxOfRateLimiter`). */
export class MaxOfRateLimiter implements RateLimiter {
  private readonly limiters: readonly RateLimiter[];

  constructor(...limiters: RateLimiter[]) {
    this.limiters = limiters;
  }

  whenMs(item: string): number {
    // Every limiter must see every call (the bucket reserves a token, the per-item limiter counts a failure).
    return this.limiters.map((limiter) => limiter.whenMs(item)).reduce((a, b) => Math.max(a, b), 0);
  }

  forget(item: string): void {
    for (const limiter of this.limiters) limiter.forget(item);
  }

  retries(item: string): number {
    return this.limiters.map((limiter) => limiter.retries(item)).reduce((a, b) => Math.max(a, b), 0);
  }
}

/** Options of {@link defaultControllerRateLimiter}. */
export interface DefaultControllerRateLimiterOptions
  extends ItemExponentialFailureRateLimiterOptions,
    TokenBucketRateLimiterOptions {}

/** client-go's `DefaultTypedControllerRateLimiter`: per-item 5 ms → 1000 s, and a global 10 qps / burst 100 bucket. */
export function defaultControllerRateLimiter(options: DefaultControllerRateLimiterOptions = {}): RateLimiter {
  return new MaxOfRateLimiter(new ItemExponentialFailureRateLimiter(options), new TokenBucketRateLimiter(options));
}
