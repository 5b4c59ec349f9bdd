import type { Logger } from 'pino';
import { Clock, TimerHandle, monotonicNow, sleep, systemClock } from '../clock';
import { isConflict } from '../errors';
import { LeaseDecision, LeaseObservation, decideLease } from './lease-decision';
import type { LeaseLock, ObservedLease } from './lease-lock';

/** Options of {@link LeaderElector}. */
export interface LeaderElectorOptions {
  readonly lock: LeaseLock;
  /** Unique per replica, e.g. `<pod name>_<random>`. */
  readonly identity: string;
  /**
   * How long a Lease that stopped changing stays valid for other candidates.
   * @default 15000
   */
  readonly leaseDurationMs?: number;
  /**
   * The leader stops leading when it has not renewed for this long. Must be shorter than the lease duration: that
   * gap is what guarantees the old leader has stopped before anyone else can acquire.
   * @default 10000
   */
  readonly renewDeadlineMs?: number;
  /**
   * Time between attempts to acquire or renew.
   * @default 2000
   */
  readonly retryPeriodMs?: number;
  /**
   * Each wait is `retryPeriodMs × (1 + jitterFraction × random)`.
   * @default 0.2
   */
  readonly jitterFraction?: number;
  /** Called once leadership is acquired; `leadership` aborts the moment it is lost or released. */
  readonly onStartedLeading: (leadership: AbortSignal) => void;
  /** Called once when leadership ends (lost, or released on shutdown). */
  readonly onStoppedLeading: (reason: LeadershipEndReason) => void;
  /** Called when the observed holder changes. */
  readonly onNewLeader?: (identity: string) => void;
  /** @default systemClock */
  readonly clock?: Clock;
  /** @default Math.random */
  readonly random?: () => number;
  readonly logger: Logger;
}

export type LeadershipEndReason = 'renew-deadline-exceeded' | 'lease-taken-by-other' | 'released';

export type LeaderElectorState = 'idle' | 'candidate' | 'leading' | 'stopped';

/**
 * Lease-based leader election with fencing (client-go's `leaderelection` with `ReleaseOnCancel`).
 *
 * Fencing: the renew deadline is a timer armed from the *start* of the last successful renew request, independent of
 * any request still hanging. Others see that renewal no earlier than it was sent and wait a full lease duration after
 * seeing it, so with renewDeadline < leaseDuration the old leader has aborted its work before a successor can
 * acquire.
 */
export class LeaderElector {
  private readonly lock: LeaseLock;
  private readonly identity: string;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly jitterFraction: number;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly logger: Logger;
  private observation: LeaseObservation | undefined;
  private lastObserved: ObservedLease | undefined;
  private lastHolder: string | undefined;
  private leadership: AbortController | undefined;
  private fenceTimer: TimerHandle | undefined;
  private currentState: LeaderElectorState = 'idle';
  private lastRenewStartMs = 0;

  constructor(private readonly options: LeaderElectorOptions) {
    this.lock = options.lock;
    this.identity = options.identity;
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    this.jitterFraction = options.jitterFraction ?? 0.2;
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.logger = options.logger;
    if (this.renewDeadlineMs >= this.leaseDurationMs) throw new RangeError('renewDeadlineMs must be shorter than leaseDurationMs');
    if (this.retryPeriodMs >= this.renewDeadlineMs) throw new RangeError('retryPeriodMs must be shorter than renewDeadlineMs');
  }

  get state(): LeaderElectorState {
    return this.currentState;
  }

  get isLeader(): boolean {
    return this.currentState === 'leading';
  }

  /**
   * Campaigns until leading, then renews until leadership ends or `stop` aborts. Resolves when either happens; does
   * not campaign again after losing (the process should exit and restart, as controller-runtime does).
   */
  async run(stop: AbortSignal): Promise<void> {
    this.currentState = 'candidate';
    this.logger.info({ lease: this.lock.description, identity: this.identity }, 'campaigning for leadership');
    while (!stop.aborted) {
      const attemptStartMs = monotonicNow(this.clock);
      if (await this.tryAcquireOrRenew(this.retryPeriodMs, stop)) {
        this.startLeading(attemptStartMs);
        break;
      }
      await sleep(this.clock, this.jittered(this.retryPeriodMs), stop);
    }
    while (!stop.aborted && this.isLeader) {
      await sleep(this.clock, this.retryPeriodMs, anySignal(stop, this.leadership?.signal));
      if (stop.aborted || !this.isLeader) break;
      const attemptStartMs = monotonicNow(this.clock);
      const remainingMs = this.lastRenewStartMs + this.renewDeadlineMs - attemptStartMs;
      const renewed = await this.tryAcquireOrRenew(Math.max(1, Math.min(this.retryPeriodMs, remainingMs)), stop);
      // The fence may have fired while the request was in flight; a late success must not revive leadership.
      if (renewed && this.isLeader) this.armFence(attemptStartMs);
    }
    if (this.currentState === 'candidate') this.currentState = 'stopped';
  }

  /**
   * Ends leadership on graceful shutdown and hands the Lease over at once (empty holder, 1 s duration) so the
   * successor does not wait for expiry. Call only after in-flight work has stopped.
   */
  async release(): Promise<void> {
    if (this.currentState !== 'leading') {
      this.currentState = 'stopped';
      return;
    }
    const observed = this.lastObserved;
    this.stopLeading('released');
    if (!observed || observed.record.holderIdentity !== this.identity) return;
    const abort = new AbortController();
    const timeout = this.clock.setTimeout(() => abort.abort(), this.retryPeriodMs);
    try {
      await this.lock.update(
        { ...observed.record, holderIdentity: '', leaseDurationSeconds: 1, renewTime: observed.record.renewTime },
        observed.resourceVersion,
        abort.signal,
      );
      this.logger.info({ lease: this.lock.description }, 'released leadership');
    } catch (error) {
      // Not fatal: the successor takes over after the lease duration instead of at once.
      this.logger.warn({ err: error, lease: this.lock.description }, 'could not release the lease');
    } finally {
      this.clock.clearTimeout(timeout);
    }
  }

  /**
   * Whether the lease is still ours by our own monotonic clock, checked synchronously (I6, I7). A process that was
   * paused (SIGSTOP, a VM pause, a long GC) past its renew deadline resumes with pending work queued before the fence
   * timer: this check ends leadership at once — aborting the leadership signal — so that work writes nothing.
   */
  leaseCurrent(): boolean {
    if (this.currentState !== 'leading') return false;
    if (monotonicNow(this.clock) >= this.lastRenewStartMs + this.renewDeadlineMs) {
      this.stopLeading('renew-deadline-exceeded');
      return false;
    }
    return true;
  }

  private startLeading(renewStartMs: number): void {
    this.currentState = 'leading';
    this.leadership = new AbortController();
    this.armFence(renewStartMs);
    this.logger.info({ lease: this.lock.description, identity: this.identity }, 'became leader');
    this.options.onStartedLeading(this.leadership.signal);
  }

  private armFence(renewStartMs: number): void {
    this.lastRenewStartMs = renewStartMs;
    if (this.fenceTimer !== undefined) this.clock.clearTimeout(this.fenceTimer);
    const delayMs = renewStartMs + this.renewDeadlineMs - monotonicNow(this.clock);
    this.fenceTimer = this.clock.setTimeout(() => this.stopLeading('renew-deadline-exceeded'), Math.max(0, delayMs));
  }

  private stopLeading(reason: LeadershipEndReason): void {
    if (this.currentState !== 'leading') return;
    this.currentState = 'stopped';
    if (this.fenceTimer !== undefined) this.clock.clearTimeout(this.fenceTimer);
    this.fenceTimer = undefined;
    const log = reason === 'released' ? this.logger.info.bind(this.logger) : this.logger.error.bind(this.logger);
    log({ lease: this.lock.description, identity: this.identity, reason }, 'stopped leading');
    this.leadership?.abort(reason);
    this.options.onStoppedLeading(reason);
  }

  /** One attempt, bounded by `timeoutMs`; never throws (a failed attempt is simply not a success). */
  private async tryAcquireOrRenew(timeoutMs: number, stop: AbortSignal): Promise<boolean> {
    const abort = new AbortController();
    const timeout = this.clock.setTimeout(() => abort.abort(), timeoutMs);
    const signal = anySignal(stop, abort.signal);
    try {
      const stored = await this.lock.get(signal);
      const { decision, observation } = decideLease({
        stored,
        previous: this.observation,
        identity: this.identity,
        nowMs: this.clock.nowMs(),
        monotonicNowMs: monotonicNow(this.clock),
        leaseDurationSeconds: Math.ceil(this.leaseDurationMs / 1000),
      });
      this.observation = observation;
      if (stored) this.lastObserved = stored;
      this.noticeHolder(stored?.record.holderIdentity);
      return await this.act(decision, signal);
    } catch (error) {
      // 409: another candidate wrote first; routine contention, not a fault.
      if (isConflict(error)) this.logger.debug({ lease: this.lock.description }, 'lease changed concurrently');
      else this.logger.warn({ err: error, lease: this.lock.description }, 'lease attempt failed');
      return false;
    } finally {
      this.clock.clearTimeout(timeout);
    }
  }

  private async act(decision: LeaseDecision, signal: AbortSignal): Promise<boolean> {
    switch (decision.action) {
      case 'wait':
        if (this.currentState === 'leading') this.stopLeading('lease-taken-by-other');
        return false;
      case 'create':
        this.lastObserved = await this.lock.create(decision.record, signal);
        break;
      case 'update':
        this.lastObserved = await this.lock.update(decision.record, decision.resourceVersion, signal);
        break;
    }
    this.observation = { recordJson: JSON.stringify(this.lastObserved.record), observedAtMs: monotonicNow(this.clock) };
    this.noticeHolder(this.identity);
    return true;
  }

  private noticeHolder(holder: string | undefined): void {
    if (holder === undefined || holder === '' || holder === this.lastHolder) return;
    this.lastHolder = holder;
    this.options.onNewLeader?.(holder);
  }

  private jittered(periodMs: number): number {
    return periodMs * (1 + this.jitterFraction * this.random());
  }
}

function anySignal(...signals: Array<AbortSignal | undefined>): AbortSignal {
  return AbortSignal.any(signals.filter((signal): signal is AbortSignal => signal !== undefined));
}
