import { JitteredBackoff, JitteredBackoffOptions } from '../backoff';
import { Clock, sleep, systemClock } from '../clock';
import { httpStatusOf } from '../errors';
import type { KubernetesObject } from '../kubernetes-object';
import type { ListWatchSource, RawWatchEvent } from './list-watch-source';
import {
  InitialListFailedError,
  WatchErrorEventError,
  WatchExpiredError,
  WatchSilentError,
  WatchStartFailedError,
} from './watcher-errors';

/**
 * What the watcher tells its consumer (kube-rs' `watcher::Event`): a relist is framed by `init` … `initDone`, so
 * the store can swap its whole content at once and detect objects that vanished while no watch was running.
 */
export type WatcherEvent<T extends KubernetesObject> =
  | { readonly type: 'init' }
  | { readonly type: 'initApply'; readonly object: T }
  | { readonly type: 'initDone' }
  | { readonly type: 'apply'; readonly object: T }
  | { readonly type: 'delete'; readonly object: T };

/**
 * The watcher's states. Every transition goes through {@link Watcher.step}; there is no path that ends the loop other
 * than the stop signal.
 */
export type WatcherState =
  | { readonly phase: 'listing'; readonly continueToken?: string }
  | { readonly phase: 'watching'; readonly resourceVersion: string }
  | {
      readonly phase: 'backingOff';
      readonly delayMs: number;
      readonly then: WatcherState;
      readonly error: Error;
    };

/** Options of {@link Watcher}. */
export interface WatcherOptions {
  /**
   * Page size of the initial list.
   * @default 500 (client-go)
   */
  readonly listPageSize?: number;
  /**
   * Shortest server-side watch timeout; each watch picks a random value in [min, 2 × min) so watches across the
   * fleet do not all reconnect together.
   * @default 300 (5 minutes, client-go's reflector)
   */
  readonly minWatchTimeoutSeconds?: number;
  /**
   * How long past the requested server-side timeout a watch may stay silent before it is presumed dead and
   * restarted (the server should have closed it by then).
   * @default 30000
   */
  readonly silenceGraceMs?: number;
  /**
   * Backoff for restarts after errors.
   * @default 800 ms → 30 s, jittered
   */
  readonly backoff?: JitteredBackoffOptions;
  /** @default systemClock */
  readonly clock?: Clock;
  /** @default Math.random */
  readonly random?: () => number;
  /** Receives every error the watcher recovers from; the watcher itself never stops on an error. */
  readonly onError?: (error: Error) => void;
}

/** A watch that ends sooner than this without delivering anything counts as a failure (backoff), not a timeout. */
const MIN_HEALTHY_WATCH_MS = 1000;

/**
 * List + watch as an explicit state machine (modelled on kube-rs' `watcher.rs`): list in pages, watch from the list's
 * resourceVersion with bookmarks and a server-side timeout, resume from the last seen resourceVersion, relist on
 * 410, and restart with jittered backoff on any other error or on silence.
 */
export class Watcher<T extends KubernetesObject> {
  private readonly listPageSize: number;
  private readonly minWatchTimeoutSeconds: number;
  private readonly silenceGraceMs: number;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly backoff: JitteredBackoff;
  private readonly onError: (error: Error) => void;

  constructor(
    private readonly source: ListWatchSource<T>,
    private readonly emit: (event: WatcherEvent<T>) => void,
    options: WatcherOptions = {},
  ) {
    this.listPageSize = options.listPageSize ?? 500;
    this.minWatchTimeoutSeconds = options.minWatchTimeoutSeconds ?? 300;
    this.silenceGraceMs = options.silenceGraceMs ?? 30_000;
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? Math.random;
    this.backoff = new JitteredBackoff({ random: this.random, ...options.backoff });
    this.onError = options.onError ?? (() => undefined);
  }

  /** Runs until `signal` aborts. Never rejects: every failure becomes a state transition. */
  async run(signal: AbortSignal): Promise<void> {
    let state: WatcherState = { phase: 'listing' };
    while (!signal.aborted) {
      state = await this.step(state, signal);
    }
  }

  /** Performs one state's work and returns the next state. */
  async step(state: WatcherState, signal: AbortSignal): Promise<WatcherState> {
    switch (state.phase) {
      case 'listing':
        return this.listPage(state.continueToken, signal);
      case 'watching':
        return this.watch(state.resourceVersion, signal);
      case 'backingOff':
        await sleep(this.clock, state.delayMs, signal);
        return state.then;
    }
  }

  private async listPage(continueToken: string | undefined, signal: AbortSignal): Promise<WatcherState> {
    if (continueToken === undefined) this.emit({ type: 'init' });
    try {
      const page = await this.source.list({ limit: this.listPageSize, continueToken, signal });
      for (const object of page.items) this.emit({ type: 'initApply', object });
      if (page.continueToken) return { phase: 'listing', continueToken: page.continueToken };
      this.emit({ type: 'initDone' });
      this.backoff.reset();
      return { phase: 'watching', resourceVersion: page.resourceVersion };
    } catch (cause) {
      // An expired continue token (410) also means: start the list over. The store discards the partial list at
      // the next `init`.
      return this.failed(new InitialListFailedError(this.source.description, { cause }), { phase: 'listing' });
    }
  }

  private async watch(resourceVersion: string, stopSignal: AbortSignal): Promise<WatcherState> {
    const timeoutSeconds = Math.floor(this.minWatchTimeoutSeconds * (1 + this.random()));
    const silenceLimitMs = timeoutSeconds * 1000 + this.silenceGraceMs;
    const watchAbort = new AbortController();
    const stop = (): void => watchAbort.abort();
    stopSignal.addEventListener('abort', stop, { once: true });

    let lastResourceVersion = resourceVersion;
    let eventsSeen = 0;
    let outcome: { kind: 'expired' } | { kind: 'errorEvent'; status: unknown } | { kind: 'silent' } | undefined;
    const onSilence = (): void => {
      outcome ??= { kind: 'silent' };
      watchAbort.abort();
    };
    let silenceTimer = this.clock.setTimeout(onSilence, silenceLimitMs);
    const onEvent = (event: RawWatchEvent<T>): void => {
      if (watchAbort.signal.aborted) return;
      this.clock.clearTimeout(silenceTimer);
      silenceTimer = this.clock.setTimeout(onSilence, silenceLimitMs);
      if (event.type === 'ERROR') {
        outcome ??= httpStatusOf(event.object) === 410 ? { kind: 'expired' } : { kind: 'errorEvent', status: event.object };
        watchAbort.abort();
        return;
      }
      // Only real events prove the watch healthy; a server that answers every watch with an ERROR must back off.
      eventsSeen += 1;
      const eventResourceVersion = event.object?.metadata?.resourceVersion;
      if (eventResourceVersion) lastResourceVersion = eventResourceVersion;
      if (event.type === 'ADDED' || event.type === 'MODIFIED') this.emit({ type: 'apply', object: event.object });
      else if (event.type === 'DELETED') this.emit({ type: 'delete', object: event.object });
      // BOOKMARK: only the resourceVersion moves, so the next watch resumes from here instead of relisting.
    };

    const startedAtMs = this.clock.nowMs();
    let transportError: unknown;
    try {
      await this.source.watch(
        { resourceVersion, timeoutSeconds, allowWatchBookmarks: true, signal: watchAbort.signal },
        onEvent,
      );
    } catch (cause) {
      transportError = cause;
    } finally {
      this.clock.clearTimeout(silenceTimer);
      stopSignal.removeEventListener('abort', stop);
      watchAbort.abort();
    }

    const resume: WatcherState = { phase: 'watching', resourceVersion: lastResourceVersion };
    if (stopSignal.aborted) return resume;
    if (eventsSeen > 0) this.backoff.reset();
    if (outcome?.kind === 'expired' || (outcome === undefined && isGoneError(transportError))) {
      return this.failed(new WatchExpiredError(this.source.description, lastResourceVersion), { phase: 'listing' }, {
        immediatelyIfHealthy: true,
      });
    }
    if (outcome?.kind === 'errorEvent') {
      return this.failed(new WatchErrorEventError(this.source.description, outcome.status), resume);
    }
    if (outcome?.kind === 'silent') {
      return this.failed(new WatchSilentError(this.source.description, silenceLimitMs), resume);
    }
    if (transportError !== undefined) {
      return this.failed(new WatchStartFailedError(this.source.description, { cause: transportError }), resume);
    }
    // The server closed the stream: normally its timeoutSeconds elapsed. Resume at once, unless it keeps closing
    // immediately (e.g. an apiserver going down), which must not become a hot loop.
    const closedTooSoon = eventsSeen === 0 && this.clock.nowMs() - startedAtMs < MIN_HEALTHY_WATCH_MS;
    return closedTooSoon
      ? this.failed(new WatchStartFailedError(this.source.description, { cause: 'closed immediately' }), resume)
      : resume;
  }

  private failed(error: Error, then: WatcherState, options: { immediatelyIfHealthy?: boolean } = {}): WatcherState {
    this.onError(error);
    // A 410 after a healthy period is routine (etcd compaction): relist at once. Repeated failures back off.
    if (options.immediatelyIfHealthy && this.backoff.failures === 0) {
      this.backoff.nextDelayMs();
      return then;
    }
    return { phase: 'backingOff', delayMs: this.backoff.nextDelayMs(), then, error };
  }
}

function isGoneError(error: unknown): boolean {
  return httpStatusOf(error) === 410;
}
