import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { Clock, systemClock } from '../clock';
import type { KubernetesObject } from '../kubernetes-object';
import type { EventSink, EventsV1Event } from './event-sink';
import { toMicroTime } from './micro-time';

/** One thing worth telling a human about an object. */
export interface EventDescription {
  readonly type: 'Normal' | 'Warning';
  /** Machine-readable, CamelCase: `ScaledUp`, `FailoverStarted`. */
  readonly reason: string;
  /** What the controller did or failed to do: `Reconcile`, `Failover`. */
  readonly action: string;
  /** Human-readable; truncated to 1 KiB (the API's limit). */
  readonly note: string;
}

/** What happened to an event. */
export type EventOutcome = 'created' | 'aggregated' | 'dropped-rate-limited' | 'failed';

/** Options of {@link EventRecorder}. */
export interface EventRecorderOptions {
  /** `reportingController`, e.g. `redkite.io/operator`. */
  readonly reportingController: string;
  /** `reportingInstance`, e.g. the pod name. */
  readonly reportingInstance: string;
  /**
   * Identical events (same object, type, reason, action and note) within this window update one Event's
   * `series` instead of creating new Events.
   * @default 600000 (10 minutes)
   */
  readonly aggregationWindowMs?: number;
  /**
   * Events an object may emit in a burst (client-go's spam filter).
   * @default 25
   */
  readonly burstPerObject?: number;
  /**
   * Sustained events per object: one more every this many milliseconds.
   * @default 300000 (5 minutes, client-go)
   */
  readonly refillIntervalMsPerObject?: number;
  /** @default systemClock */
  readonly clock?: Clock;
  /** Failures to write Events are logged here (Events are best effort and never fail a reconcile). */
  readonly logger: Logger;
}

interface Series {
  readonly namespace: string;
  readonly name: string;
  count: number;
  lastObservedMs: number;
}

interface Bucket {
  tokens: number;
  lastRefillMs: number;
}

const MAX_NOTE_BYTES = 1024;

/**
 * Records `events.k8s.io/v1` Events. Repeats are aggregated into one Event's `series`, and each object has a token
 * bucket so a hot loop cannot flood the API; calls for the same series are serialized so two concurrent repeats
 * cannot both create an Event.
 */
export class EventRecorder {
  private readonly aggregationWindowMs: number;
  private readonly burstPerObject: number;
  private readonly refillIntervalMsPerObject: number;
  private readonly clock: Clock;
  private readonly series = new Map<string, Series>();
  private readonly buckets = new Map<string, Bucket>();
  private readonly pending = new Map<string, Promise<EventOutcome>>();

  constructor(
    private readonly sink: EventSink,
    private readonly options: EventRecorderOptions,
  ) {
    this.aggregationWindowMs = options.aggregationWindowMs ?? 600_000;
    this.burstPerObject = options.burstPerObject ?? 25;
    this.refillIntervalMsPerObject = options.refillIntervalMsPerObject ?? 300_000;
    this.clock = options.clock ?? systemClock;
  }

  /** Records an Event about `regarding`. Never rejects; the outcome says what happened. */
  event(regarding: KubernetesObject, description: EventDescription): Promise<EventOutcome> {
    const seriesKey = JSON.stringify([
      regarding.apiVersion,
      regarding.kind,
      regarding.metadata?.namespace,
      regarding.metadata?.name,
      regarding.metadata?.uid,
      description.type,
      description.reason,
      description.action,
      description.note,
    ]);
    const previous = this.pending.get(seriesKey) ?? Promise.resolve<EventOutcome>('created');
    const next = previous.then(() => this.record(seriesKey, regarding, description));
    this.pending.set(seriesKey, next);
    void next.then(() => {
      if (this.pending.get(seriesKey) === next) this.pending.delete(seriesKey);
    });
    return next;
  }

  private async record(seriesKey: string, regarding: KubernetesObject, description: EventDescription): Promise<EventOutcome> {
    const nowMs = this.clock.nowMs();
    const objectKey = `${regarding.kind}/${regarding.metadata?.namespace}/${regarding.metadata?.name}`;
    if (!this.takeToken(objectKey, nowMs)) {
      this.options.logger.debug({ object: objectKey, reason: description.reason }, 'event dropped by the per-object rate limit');
      return 'dropped-rate-limited';
    }
    this.evictExpiredSeries(nowMs);
    const existing = this.series.get(seriesKey);
    try {
      if (existing && nowMs - existing.lastObservedMs <= this.aggregationWindowMs) {
        existing.count += 1;
        existing.lastObservedMs = nowMs;
        await this.sink.updateSeries(existing.namespace, existing.name, {
          count: existing.count,
          lastObservedTime: toMicroTime(nowMs),
        });
        return 'aggregated';
      }
      const event = this.buildEvent(regarding, description, nowMs);
      await this.sink.create(event);
      this.series.set(seriesKey, { namespace: event.metadata.namespace, name: event.metadata.name, count: 1, lastObservedMs: nowMs });
      return 'created';
    } catch (error) {
      // The Event may have been deleted (TTL) while we still aggregate into it: start a fresh series next time.
      this.series.delete(seriesKey);
      this.options.logger.warn({ err: error, object: objectKey, reason: description.reason }, 'could not record event');
      return 'failed';
    }
  }

  private buildEvent(regarding: KubernetesObject, description: EventDescription, nowMs: number): EventsV1Event {
    const namespace = regarding.metadata?.namespace || 'default';
    // Name like client-go: `<object>.<unique suffix>`; random so replicas never collide.
    const name = `${regarding.metadata?.name ?? 'unknown'}.${nowMs.toString(16)}${randomBytes(4).toString('hex')}`;
    return {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name, namespace },
      eventTime: toMicroTime(nowMs),
      reportingController: this.options.reportingController,
      reportingInstance: this.options.reportingInstance,
      action: description.action,
      reason: description.reason,
      note: truncateUtf8(description.note, MAX_NOTE_BYTES),
      type: description.type,
      regarding: {
        apiVersion: regarding.apiVersion,
        kind: regarding.kind,
        name: regarding.metadata?.name,
        namespace: regarding.metadata?.namespace,
        uid: regarding.metadata?.uid,
        resourceVersion: regarding.metadata?.resourceVersion,
      },
    };
  }

  private takeToken(objectKey: string, nowMs: number): boolean {
    const bucket = this.buckets.get(objectKey) ?? { tokens: this.burstPerObject, lastRefillMs: nowMs };
    bucket.tokens = Math.min(this.burstPerObject, bucket.tokens + (nowMs - bucket.lastRefillMs) / this.refillIntervalMsPerObject);
    bucket.lastRefillMs = nowMs;
    this.buckets.set(objectKey, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  /** Keeps memory bounded by the number of recently active series. */
  private evictExpiredSeries(nowMs: number): void {
    for (const [key, series] of this.series) {
      if (nowMs - series.lastObservedMs > this.aggregationWindowMs) this.series.delete(key);
    }
    for (const [key, bucket] of this.buckets) {
      const refilledTokens = bucket.tokens + (nowMs - bucket.lastRefillMs) / this.refillIntervalMsPerObject;
      if (refilledTokens >= this.burstPerObject) this.buckets.delete(key);
    }
  }
}

function truncateUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  return bytes.subarray(0, maxBytes - 3).toString('utf8').replace(/\uFFFD$/, '') + '...';
}
