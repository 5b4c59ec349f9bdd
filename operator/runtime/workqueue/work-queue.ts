import { Clock, TimerHandle, systemClock } from '../clock';
import { Fifo } from './fifo';
import { RateLimiter, defaultControllerRateLimiter } from './rate-limiter';
import { WorkQueueMetricsRecorder, noopWorkQueueMetrics } from './work-queue-metrics';

/** Options of {@link WorkQueue}. */
export interface WorkQueueOptions {
  /**
   * Decides the delay of {@link WorkQueue.addRateLimited}.
   * @default defaultControllerRateLimiter() — per key 5 ms → 1000 s, global 10 qps / burst 100
   */
  readonly rateLimiter?: RateLimiter;
  /** @default systemClock */
  readonly clock?: Clock;
  /** @default no metrics */
  readonly metrics?: WorkQueueMetricsRecorder;
}

interface DelayedAdd {
  readonly readyAtMs: number;
  readonly timer: TimerHandle;
}

/**
 * A rate-limited, delaying, de-duplicating work queue with client-go's semantics:
 *
 * - `dirty` holds keys that need processing; a key is queued once however often it is added.
 * - `processing` holds keys a worker holds; adding such a key only marks it dirty, and {@link done} queues it again,
 *   so the same key is never processed by two workers at once and no change is lost.
 * - After {@link shutDown} no more keys are handed out; {@link drain} waits for the keys being processed.
 */
export class WorkQueue {
  private readonly rateLimiter: RateLimiter;
  private readonly clock: Clock;
  private readonly metrics: WorkQueueMetricsRecorder;
  private readonly queue = new Fifo<string>();
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly queuedAtMs = new Map<string, number>();
  private readonly startedAtMs = new Map<string, number>();
  private readonly delayed = new Map<string, DelayedAdd>();
  private readonly waitingWorkers: Array<(item: string | undefined) => void> = [];
  private readonly drainWaiters: Array<() => void> = [];
  private shuttingDown = false;

  constructor(options: WorkQueueOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter({ clock: this.clock });
    this.metrics = options.metrics ?? noopWorkQueueMetrics;
  }

  /** Number of keys waiting for a worker (not counting delayed or in-flight keys). */
  get length(): number {
    return this.queue.length;
  }

  /** Number of keys a worker currently holds. */
  get inFlight(): number {
    return this.processing.size;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /** Queue `item` now. No-op when it is already queued, or after shutdown. */
  add(item: string): void {
    if (this.shuttingDown) return;
    this.metrics.added();
    if (this.dirty.has(item)) return;
    this.dirty.add(item);
    this.queuedAtMs.set(item, this.clock.nowMs());
    if (this.processing.has(item)) return;
    this.enqueue(item);
  }

  /** Queue `item` after `delayMs`; if it is already waiting, the earlier deadline wins. */
  addAfter(item: string, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) {
      this.add(item);
      return;
    }
    const readyAtMs = this.clock.nowMs() + delayMs;
    const existing = this.delayed.get(item);
    if (existing && existing.readyAtMs <= readyAtMs) return;
    if (existing) this.clock.clearTimeout(existing.timer);
    const timer = this.clock.setTimeout(() => {
      this.delayed.delete(item);
      this.add(item);
    }, delayMs);
    this.delayed.set(item, { readyAtMs, timer });
  }

  /** Queue `item` after the rate limiter's delay: its per-key backoff, and the global token bucket. */
  addRateLimited(item: string): void {
    if (this.shuttingDown) return;
    this.metrics.retried();
    this.addAfter(item, this.rateLimiter.whenMs(item));
  }

  /** Reset `item`'s backoff (after a successful reconcile). Does not remove it from the queue. */
  forget(item: string): void {
    this.rateLimiter.forget(item);
  }

  /** How often `item` has been re-queued with backoff since it was last forgotten. */
  retries(item: string): number {
    return this.rateLimiter.retries(item);
  }

  /**
   * The next key to process, waiting until there is one; `undefined` once the queue shuts down. The caller must
   * call {@link done} with the key when finished.
   */
  get(): Promise<string | undefined> {
    if (this.shuttingDown) return Promise.resolve(undefined);
    const item = this.take();
    if (item !== undefined) return Promise.resolve(item);
    return new Promise((resolve) => this.waitingWorkers.push(resolve));
  }

  /** Mark `item` as processed; if it was added meanwhile it is queued again. */
  done(item: string): void {
    if (!this.processing.delete(item)) return;
    const startedAtMs = this.startedAtMs.get(item);
    this.startedAtMs.delete(item);
    if (startedAtMs !== undefined) this.metrics.finished((this.clock.nowMs() - startedAtMs) / 1000);
    if (this.dirty.has(item) && !this.shuttingDown) this.enqueue(item);
    if (this.processing.size === 0) this.drainWaiters.splice(0).forEach((resolve) => resolve());
  }

  /** Stop handing out keys: waiting and future {@link get} calls return `undefined`; delayed adds are dropped. */
  shutDown(): void {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    for (const { timer } of this.delayed.values()) this.clock.clearTimeout(timer);
    this.delayed.clear();
    this.waitingWorkers.splice(0).forEach((resolve) => resolve(undefined));
  }

  /** Resolves once no key is being processed (call after {@link shutDown} to wait for in-flight work). */
  drain(): Promise<void> {
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /** Keys currently held by workers, for shutdown diagnostics. */
  inFlightKeys(): string[] {
    return [...this.processing];
  }

  private enqueue(item: string): void {
    const waitingWorker = this.waitingWorkers.shift();
    if (waitingWorker) {
      waitingWorker(this.startProcessing(item));
      return;
    }
    this.queue.push(item);
    this.metrics.depthChanged(this.queue.length);
  }

  private take(): string | undefined {
    const item = this.queue.shift();
    if (item === undefined) return undefined;
    this.metrics.depthChanged(this.queue.length);
    return this.startProcessing(item);
  }

  private startProcessing(item: string): string {
    const nowMs = this.clock.nowMs();
    this.processing.add(item);
    this.dirty.delete(item);
    const queuedAtMs = this.queuedAtMs.get(item);
    this.queuedAtMs.delete(item);
    if (queuedAtMs !== undefined) this.metrics.started((nowMs - queuedAtMs) / 1000);
    this.startedAtMs.set(item, nowMs);
    return item;
  }
}
