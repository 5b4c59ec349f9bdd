/** Options of {@link JitteredBackoff}. */
export interface JitteredBackoffOptions {
  /**
   * First delay.
   * @default 800 (client-go reflector)
   */
  readonly initialDelayMs?: number;
  /**
   * Upper bound of any delay, jitter included.
   * @default 30000
   */
  readonly maxDelayMs?: number;
  /**
   * Each delay is multiplied by a random factor in `[1, 1 + jitterFraction)` so that many watchers restarted by
   * the same apiserver restart do not reconnect in lock step.
   * @default 0.5
   */
  readonly jitterFraction?: number;
  /**
   * Source of randomness in [0, 1).
   * @default Math.random
   */
  readonly random?: () => number;
}

/** Exponential backoff with jitter: 800 ms, 1.6 s, 3.2 s, ... capped at 30 s by default. */
export class JitteredBackoff {
  private readonly initialDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly jitterFraction: number;
  private readonly random: () => number;
  private consecutiveFailures = 0;

  constructor(options: JitteredBackoffOptions = {}) {
    this.initialDelayMs = options.initialDelayMs ?? 800;
    this.maxDelayMs = options.maxDelayMs ?? 30_000;
    this.jitterFraction = options.jitterFraction ?? 0.5;
    this.random = options.random ?? Math.random;
  }

  /** The delay before the next attempt; each call counts one more consecutive failure. */
  nextDelayMs(): number {
    const exponent = Math.min(this.consecutiveFailures, 30);
    this.consecutiveFailures += 1;
    const baseDelayMs = Math.min(this.maxDelayMs, this.initialDelayMs * 2 ** exponent);
    return Math.min(this.maxDelayMs, baseDelayMs * (1 + this.jitterFraction * this.random()));
  }

  /** Number of failures since the last {@link reset}. */
  get failures(): number {
    return this.consecutiveFailures;
  }

  reset(): void {
    this.consecutiveFailures = 0;
  }
}
