import type { ConcurrencyLimit } from '../kube/concurrency-limit';
import { KubeApiError } from '../kube/kube-rest-client';
import { backoffDelayMilliseconds, type BackoffSettings } from '../kube/retry-backoff';

/** What a {@link PodStatusReporter} needs. */
export interface PodStatusReporterOptions {
  readonly podKey: string;
  /** Computes the pod's current status and writes it (skipping a write that would change nothing). */
  readonly write: () => Promise<void>;
  readonly warn: (message: string, error?: unknown) => void;
  /** Shared by every pod of the node, so status writes cannot crowd out bindings and heartbeats. */
  readonly writeLimit: ConcurrencyLimit;
  /** Wait after the first change, so a burst of container changes becomes one write. @default 50 */
  readonly debounceMilliseconds?: number;
  /** Least time between two writes of this pod. @default 200 */
  readonly minIntervalMilliseconds?: number;
  /** @default 500 ms → 10 s */
  readonly retryBackoff?: BackoffSettings;
}

const DEFAULT_DEBOUNCE_MILLISECONDS = 50;
const DEFAULT_MIN_INTERVAL_MILLISECONDS = 200;
const DEFAULT_RETRY_BACKOFF: BackoffSettings = { initialMilliseconds: 500, maxMilliseconds: 10_000 };

/**
 * Reports one pod's status like the kubelet's status manager: changes are coalesced (one write in flight per
 * pod, changes during it fold into the next, at most one write per 200 ms), and a failed write is logged and
 * retried with back-off until it lands — the latest status is never lost, because every write computes it
 * afresh. Only answers that mean the object is gone or is another pod now (404, or 409/422 from the uid
 * precondition) end the reporting.
 */
export class PodStatusReporter {
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private dirty = false;
  private failures = 0;
  private lastWriteAt = Number.NEGATIVE_INFINITY;
  private stopped = false;
  private readonly debounceMilliseconds: number;
  private readonly minIntervalMilliseconds: number;
  private readonly retryBackoff: BackoffSettings;

  constructor(private readonly options: PodStatusReporterOptions) {
    this.debounceMilliseconds = options.debounceMilliseconds ?? DEFAULT_DEBOUNCE_MILLISECONDS;
    this.minIntervalMilliseconds = options.minIntervalMilliseconds ?? DEFAULT_MIN_INTERVAL_MILLISECONDS;
    this.retryBackoff = options.retryBackoff ?? DEFAULT_RETRY_BACKOFF;
  }

  /** Whether reporting ended (stopped, or the pod object is gone). */
  get isStopped(): boolean {
    return this.stopped;
  }

  /** The status changed: write it soon. */
  request(): void {
    if (this.stopped) return;
    this.dirty = true;
    if (!this.timer && !this.writing) this.schedule(Math.max(this.debounceMilliseconds, this.lastWriteAt + this.minIntervalMilliseconds - Date.now()));
  }

  /**
   * Writes the current status now (after a write in flight), for the last report before the pod object is
   * deleted. A failure is logged, not retried: the object is about to go.
   */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.writing;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.stopped) return;
    this.dirty = true;
    await this.writeOnce(false);
  }

  /** No more writes (a write in flight still finishes). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(delayMilliseconds: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.writeOnce(true);
    }, delayMilliseconds);
  }

  private async writeOnce(retryOnFailure: boolean): Promise<void> {
    if (this.stopped || !this.dirty) return;
    this.dirty = false;
    this.writing = this.options.writeLimit.run(() => (this.stopped ? Promise.resolve() : this.options.write()));
    let retryDelay: number | undefined;
    try {
      await this.writing;
      this.failures = 0;
      this.lastWriteAt = Date.now();
    } catch (error) {
      if (error instanceof KubeApiError && (error.statusCode === 404 || error.statusCode === 409 || error.statusCode === 422)) {
        // The pod object is gone, or the name belongs to a newer pod: nothing of ours left to report.
        this.stop();
        return;
      }
      this.failures++;
      if (retryOnFailure) {
        this.dirty = true;
        retryDelay = backoffDelayMilliseconds(this.retryBackoff, this.failures);
      }
      this.options.warn(`status of ${this.options.podKey} not written (${this.failures} failures in a row)${retryDelay === undefined ? '' : `; retrying in ${retryDelay} ms`}`, error);
    } finally {
      this.writing = undefined;
    }
    // Changes that arrived during the write (or the failed write itself) go out in the next one.
    if (this.stopped || !this.dirty || this.timer) return;
    this.schedule(retryDelay ?? Math.max(this.debounceMilliseconds, this.lastWriteAt + this.minIntervalMilliseconds - Date.now()));
  }
}
