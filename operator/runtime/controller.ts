import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { Clock, TimerHandle, systemClock } from './clock';
import { isTerminalError } from './errors';
import { ObjectKey, objectKeyFromString, objectKeyToString } from './kubernetes-object';
import type { ControllerMetrics } from './metrics/controller-metrics';
import type { ReconcileResultLabel } from './metrics/controller-metrics';
import type { ReconcileResult, Reconciler } from './reconciler';
import type { RateLimiter } from './workqueue/rate-limiter';
import { WorkQueue } from './workqueue/work-queue';
import type { WorkQueueMetricsRecorder } from './workqueue/work-queue-metrics';

/** Options of {@link Controller}. */
export interface ControllerOptions {
  /** Names the controller in logs and metrics. */
  readonly name: string;
  readonly reconciler: Reconciler;
  /**
   * Workers: how many different keys reconcile at once (one key never runs twice at once).
   * @default 4
   */
  readonly maxConcurrentReconciles?: number;
  /**
   * Per-key backoff and global rate limit of retries.
   * @default defaultControllerRateLimiter() — 5 ms → 1000 s per key, 10 qps / burst 100 overall
   */
  readonly rateLimiter?: RateLimiter;
  /**
   * Re-enqueue every key returned by `listKeysForResync` this often (level-based safety net).
   * @default 36000000 (10 hours, controller-runtime's SyncPeriod)
   */
  readonly resyncPeriodMs?: number;
  /** Keys to re-enqueue on resync (the primary kind's cache). @default none */
  readonly listKeysForResync?: () => ObjectKey[];
  /** @default systemClock */
  readonly clock?: Clock;
  readonly logger: Logger;
  /** @default no metrics */
  readonly metrics?: ControllerMetrics;
  /** @default no metrics */
  readonly workQueueMetrics?: WorkQueueMetricsRecorder;
}

/**
 * Runs a {@link Reconciler} over a {@link WorkQueue} with a fixed pool of workers (controller-runtime's internal
 * controller). Every outcome of a reconcile — result, exception, non-Error throw — is caught, logged, counted and
 * turned into a queue decision; nothing escapes to crash the process.
 */
export class Controller {
  readonly name: string;
  readonly queue: WorkQueue;
  private readonly reconciler: Reconciler;
  private readonly maxConcurrentReconciles: number;
  private readonly resyncPeriodMs: number;
  private readonly listKeysForResync: () => ObjectKey[];
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly metrics: ControllerMetrics | undefined;
  private readonly reconcileAbort = new AbortController();
  private workers: Promise<void>[] = [];
  private resyncTimer: TimerHandle | undefined;
  private started = false;

  constructor(options: ControllerOptions) {
    this.name = options.name;
    this.reconciler = options.reconciler;
    this.maxConcurrentReconciles = options.maxConcurrentReconciles ?? 4;
    this.resyncPeriodMs = options.resyncPeriodMs ?? 36_000_000;
    this.listKeysForResync = options.listKeysForResync ?? (() => []);
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger.child({ controller: options.name });
    this.metrics = options.metrics;
    this.queue = new WorkQueue({ rateLimiter: options.rateLimiter, clock: this.clock, metrics: options.workQueueMetrics });
    this.metrics?.initialize(this.name, this.maxConcurrentReconciles);
  }

  /** Requests a reconcile of `key` (deduplicated). Safe to call before {@link start}. */
  enqueue(key: ObjectKey): void {
    this.queue.add(objectKeyToString(key));
  }

  enqueueAfter(key: ObjectKey, delayMs: number): void {
    this.queue.addAfter(objectKeyToString(key), delayMs);
  }

  /**
   * Starts the workers. `leadership` (optional) aborting means another replica may take over: in-flight reconciles
   * are aborted at once and no new ones start.
   */
  start(leadership?: AbortSignal): void {
    if (this.started) return;
    this.started = true;
    if (leadership) {
      const onLost = (): void => {
        // 'released' is the graceful path: the manager drained the workers before releasing the Lease.
        if (leadership.reason === 'released') this.logger.info('leadership released');
        else this.logger.error({ reason: String(leadership.reason) }, 'leadership lost: aborting in-flight reconciles and taking no more work');
        this.queue.shutDown();
        this.reconcileAbort.abort(leadership.reason);
      };
      if (leadership.aborted) onLost();
      else leadership.addEventListener('abort', onLost, { once: true });
    }
    this.logger.info({ workers: this.maxConcurrentReconciles }, 'starting workers');
    this.workers = Array.from({ length: this.maxConcurrentReconciles }, () => this.runWorker());
    this.scheduleResync();
  }

  /**
   * Stops taking work and waits up to `deadlineMs` for in-flight reconciles; after that it aborts their signal and
   * returns without waiting further (a reconcile that ignores its signal cannot be forced to stop in JavaScript).
   * Resolves `true` when everything drained in time.
   */
  async stop(deadlineMs: number): Promise<boolean> {
    if (this.resyncTimer !== undefined) this.clock.clearTimeout(this.resyncTimer);
    this.queue.shutDown();
    let deadlineTimer: TimerHandle | undefined;
    const deadline = new Promise<false>((resolve) => {
      deadlineTimer = this.clock.setTimeout(() => resolve(false), deadlineMs);
    });
    const drained = Promise.all(this.workers).then(() => true as const);
    const inTime = await Promise.race([drained, deadline]);
    if (deadlineTimer !== undefined) this.clock.clearTimeout(deadlineTimer);
    if (!inTime) {
      this.logger.warn({ inFlight: this.queue.inFlightKeys(), deadlineMs }, 'shutdown deadline passed; aborting in-flight reconciles');
      this.reconcileAbort.abort(new Error('controller shutdown deadline passed'));
    } else {
      this.logger.info('workers drained');
    }
    return inTime;
  }

  private async runWorker(): Promise<void> {
    for (;;) {
      const item = await this.queue.get();
      if (item === undefined) return;
      try {
        await this.reconcileItem(item);
      } finally {
        this.queue.done(item);
      }
    }
  }

  private async reconcileItem(item: string): Promise<void> {
    const key = objectKeyFromString(item);
    const reconcileId = randomUUID();
    const logger = this.logger.child({ key: item, namespace: key.namespace, name: key.name, reconcileId });
    const labels = { controller: this.name };
    const startedAtMs = this.clock.nowMs();
    this.metrics?.activeWorkers.inc(labels);
    let metricResult: ReconcileResultLabel;
    try {
      const result = (await this.reconciler(key, {
        logger,
        signal: this.reconcileAbort.signal,
        reconcileId,
        retries: this.queue.retries(item),
      })) as ReconcileResult | undefined;
      metricResult = this.applyResult(item, result);
    } catch (error) {
      metricResult = 'error';
      this.metrics?.reconcileErrors.inc(labels);
      if (!(error instanceof Error) && !(typeof error === 'object' && error !== null && 'message' in error)) {
        this.metrics?.reconcilePanics.inc(labels);
      }
      if (isTerminalError(error)) {
        // Retrying cannot help; the reconciler has reported it (status, Event). A change to the object re-triggers.
        this.metrics?.terminalReconcileErrors.inc(labels);
        this.queue.forget(item);
        logger.error({ err: error }, 'reconcile failed with a terminal error; not retrying');
      } else {
        this.queue.addRateLimited(item);
        logger.error({ err: error, retries: this.queue.retries(item) }, 'reconcile failed; retrying with backoff');
      }
    } finally {
      this.metrics?.activeWorkers.dec(labels);
      this.metrics?.reconcileTime.observe(labels, (this.clock.nowMs() - startedAtMs) / 1000);
    }
    this.metrics?.reconcileTotal.inc({ controller: this.name, result: metricResult });
  }

  private applyResult(item: string, result: ReconcileResult | undefined): ReconcileResultLabel {
    if (result?.requeueAfterMs !== undefined && result.requeueAfterMs > 0) {
      this.queue.forget(item);
      this.queue.addAfter(item, result.requeueAfterMs);
      return 'requeue_after';
    }
    if (result?.requeue) {
      this.queue.addRateLimited(item);
      return 'requeue';
    }
    this.queue.forget(item);
    return 'success';
  }

  private scheduleResync(): void {
    this.resyncTimer = this.clock.setTimeout(() => {
      if (this.queue.isShuttingDown) return;
      const keys = this.listKeysForResync();
      this.logger.debug({ keys: keys.length }, 'periodic resync');
      for (const key of keys) this.enqueue(key);
      this.scheduleResync();
    }, this.resyncPeriodMs);
  }
}
