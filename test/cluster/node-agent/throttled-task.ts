/**
 * Runs a task soon after it is requested, at most once per `minIntervalMilliseconds`: any number of requests
 * while one run is pending or too recent collapse into one run. For work whose cost grows with the cluster
 * (recomputing every Service's endpoints) that many events ask for at once (each pod's change, each resync).
 * A failing run is reported to `warn`; the next request runs it again.
 */
export class ThrottledTask {
  private timer: NodeJS.Timeout | undefined;
  private lastRunAt = Number.NEGATIVE_INFINITY;
  private stopped = false;

  constructor(
    private readonly task: () => void,
    private readonly minIntervalMilliseconds: number,
    private readonly warn: (message: string, error?: unknown) => void,
    private readonly description: string,
  ) {}

  /** Asks for a run; returns at once. */
  request(): void {
    if (this.stopped || this.timer) return;
    const delay = Math.max(0, this.lastRunAt + this.minIntervalMilliseconds - Date.now());
    this.timer = setTimeout(() => this.runNow(), delay);
  }

  /** Runs now (and cancels a pending run). */
  runNow(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.stopped) return;
    this.lastRunAt = Date.now();
    try {
      this.task();
    } catch (error) {
      this.warn(`${this.description} failed`, error);
    }
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
