import type { Logger } from 'pino';
import type { KubernetesObject } from '../kubernetes-object';
import type { ListWatchSource } from './list-watch-source';
import { createLogger } from '../logging/logger';
import { ObjectStore, StoreChangeHandlers, StoreWriter } from './store';
import { Watcher, WatcherOptions } from './watcher';

/** Options of {@link Informer}. */
export interface InformerOptions extends Omit<WatcherOptions, 'onError'> {
  /**
   * Receives recovered watch errors (at `warn`) and handler exceptions (at `error`).
   * @default createLogger()
   */
  readonly logger?: Logger;
}

/** Handlers registered with {@link Informer.addEventHandler}. */
export type InformerEventHandler<T extends KubernetesObject> = StoreChangeHandlers<T>;

/**
 * A cache of one kind of object, kept current by a {@link Watcher}, that notifies handlers of every change. Handler
 * exceptions are logged and do not disturb the cache or the other handlers.
 */
export class Informer<T extends KubernetesObject> {
  private readonly handlers: InformerEventHandler<T>[] = [];
  private readonly writer: StoreWriter<T>;
  private readonly watcher: Watcher<T>;
  private readonly logger: Logger;
  private readonly syncWaiters: Array<() => void> = [];
  private running: { readonly abort: AbortController; readonly done: Promise<void> } | undefined;

  constructor(
    public readonly source: ListWatchSource<T>,
    options: InformerOptions = {},
  ) {
    this.logger = options.logger ?? createLogger();
    this.writer = new StoreWriter<T>({
      onAdd: (object) => this.dispatch('onAdd', (handler) => handler.onAdd?.(object)),
      onUpdate: (oldObject, newObject) => this.dispatch('onUpdate', (handler) => handler.onUpdate?.(oldObject, newObject)),
      onDelete: (object) => this.dispatch('onDelete', (handler) => handler.onDelete?.(object)),
    });
    this.watcher = new Watcher<T>(
      source,
      (event) => {
        this.writer.apply(event);
        if (event.type === 'initDone') this.syncWaiters.splice(0).forEach((resolve) => resolve());
      },
      {
        ...options,
        onError: (error) => this.logger.warn({ err: error, source: source.description }, error.message),
      },
    );
  }

  /** The cache; readers only. */
  get store(): ObjectStore<T> {
    return this.writer.asReader();
  }

  hasSynced(): boolean {
    return this.writer.hasSynced();
  }

  /**
   * Registers handlers. Objects already cached are replayed as adds, so a handler registered late sees the same
   * world as one registered before start.
   */
  addEventHandler(handler: InformerEventHandler<T>): void {
    this.handlers.push(handler);
    for (const object of this.writer.list()) this.invoke('onAdd', () => handler.onAdd?.(object));
  }

  /** Starts list+watch in the background; idempotent. */
  start(): void {
    if (this.running) return;
    const abort = new AbortController();
    this.logger.info({ source: this.source.description }, 'informer starting');
    this.running = { abort, done: this.watcher.run(abort.signal) };
  }

  /** Resolves once the first full list is cached, or when `signal` aborts (then it resolves false). */
  waitForSync(signal?: AbortSignal): Promise<boolean> {
    if (this.hasSynced()) return Promise.resolve(true);
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onAbort = (): void => resolve(false);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.syncWaiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve(true);
      });
    });
  }

  /** Stops the watch and waits for the watch loop to end. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running.abort.abort();
    await this.running.done;
    this.running = undefined;
  }

  private dispatch(handlerName: keyof InformerEventHandler<T>, call: (handler: InformerEventHandler<T>) => void): void {
    for (const handler of this.handlers) this.invoke(handlerName, () => call(handler));
  }

  private invoke(handlerName: string, call: () => void): void {
    try {
      call();
    } catch (error) {
      this.logger.error({ err: error, source: this.source.description, handler: handlerName }, 'informer event handler threw');
    }
  }
}
