/** Crash-loop back-off settings. */
export interface RestartBackoffSettings {
  /** Delay before the second restart; the first restart is immediate, like the kubelet's. @default 10_000 */
  readonly baseMilliseconds: number;
  /** @default 300_000 */
  readonly maxMilliseconds: number;
}

/** The kubelet's defaults: 10 s doubling up to 5 min. */
export const KUBELET_RESTART_BACKOFF: RestartBackoffSettings = { baseMilliseconds: 10_000, maxMilliseconds: 300_000 };

/**
 * Per-container restart delay: 0 for the first restart, then base, 2×base, … up to max. A container that ran
 * for twice the maximum before exiting starts over (the kubelet forgets back-off after a healthy run too).
 */
export class RestartBackoff {
  private restarts = 0;

  constructor(private readonly settings: RestartBackoffSettings) {}

  /** The delay before the next restart, given how long the container just ran. */
  nextDelayMilliseconds(ranForMilliseconds: number): number {
    if (ranForMilliseconds >= 2 * this.settings.maxMilliseconds) this.restarts = 0;
    const delay = this.restarts === 0 ? 0 : Math.min(this.settings.baseMilliseconds * 2 ** (this.restarts - 1), this.settings.maxMilliseconds);
    this.restarts++;
    return delay;
  }
}
