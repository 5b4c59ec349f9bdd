/**
 * Crash-loop back-off settings, modelled on the kubelet (pkg/kubelet/kuberuntime `doBackOff` with client-go's
 * `flowcontrol.Backoff`, Kubernetes 1.34): the first restart of a container is not delayed by back-off, each
 * later one waits `base × 2^(n-2)` after the exit, capped at `max`, and a container that ran for more than twice
 * the cap starts over. No restart comes sooner than `minimumDelayMilliseconds`: the kubelet only notices that a
 * container exited at its next PLEG relist, every second.
 */
export interface RestartBackoffSettings {
  /** Earliest restart after an exit (the kubelet's 1 s PLEG relist period). @default 1000 */
  readonly minimumDelayMilliseconds: number;
  /** Back-off before the second restart, doubling after each further one. @default 10_000 */
  readonly baseMilliseconds: number;
  /** Cap of the back-off; a run longer than twice the cap resets it (10 min by default). @default 300_000 */
  readonly maxMilliseconds: number;
}

/** The kubelet's defaults: restart after ~1 s, then back off 10 s, 20 s, … up to 5 min. */
export const KUBELET_RESTART_BACKOFF: RestartBackoffSettings = { minimumDelayMilliseconds: 1000, baseMilliseconds: 10_000, maxMilliseconds: 300_000 };

/**
 * The kubelet with the `ReduceDefaultCrashLoopBackOffDecay` feature gate (KEP-4603, alpha in 1.33): back-off
 * from 1 s doubling up to 60 s, so restarts come after 1 s, 1 s, 2 s, 4 s, … — "1 s, doubling".
 */
export const REDUCED_KUBELET_RESTART_BACKOFF: RestartBackoffSettings = { minimumDelayMilliseconds: 1000, baseMilliseconds: 1000, maxMilliseconds: 60_000 };

/** Checks settings from a command line or a caller; throws a RangeError naming the bad field. */
export function validateRestartBackoff(settings: RestartBackoffSettings): RestartBackoffSettings {
  for (const [field, value] of Object.entries(settings)) {
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`restart back-off ${field} must be a number of milliseconds >= 0, got ${value}`);
  }
  if (settings.maxMilliseconds < settings.baseMilliseconds) {
    throw new RangeError(`restart back-off maxMilliseconds (${settings.maxMilliseconds}) is below baseMilliseconds (${settings.baseMilliseconds})`);
  }
  return settings;
}

/** When to restart a container that exited. */
export interface RestartDelay {
  readonly milliseconds: number;
  /** Whether back-off holds the restart (the kubelet reports `CrashLoopBackOff`), not just the relist delay. */
  readonly backingOff: boolean;
}

/** Per-container restart delay (see {@link RestartBackoffSettings}). */
export class RestartBackoff {
  private restarts = 0;

  constructor(private readonly settings: RestartBackoffSettings) {}

  /** The delay before the next restart, given how long the container just ran. */
  next(ranForMilliseconds: number): RestartDelay {
    if (ranForMilliseconds > 2 * this.settings.maxMilliseconds) this.restarts = 0;
    const backoff = this.restarts === 0 ? 0 : Math.min(this.settings.baseMilliseconds * 2 ** (this.restarts - 1), this.settings.maxMilliseconds);
    this.restarts++;
    return { milliseconds: Math.max(backoff, this.settings.minimumDelayMilliseconds), backingOff: backoff > 0 };
  }
}
