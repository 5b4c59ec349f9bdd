import { KubeApiError, type KubeRestClient, type WatchEvent } from './kube-rest-client';
import { backoffDelayMilliseconds, sleep, type BackoffSettings } from './retry-backoff';

/** The metadata every watched object has. */
export interface KubeObjectLike {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string; uid?: string };
}

/** A change of the collection, as seen after a list or a watch event. */
export type CollectionChange = 'upserted' | 'deleted';

/** Logging hook (the harness uses pino; the collection does not care). */
export type WarnLogger = (message: string, error?: unknown) => void;

const WATCH_SECONDS = 60;
const RESTART_BACKOFF: BackoffSettings = { initialMilliseconds: 200, maxMilliseconds: 5000 };
/** Objects per list page: a relist of thousands of pods in one answer can outlast the request timeout under load. */
const LIST_PAGE_SIZE = 500;

/** `namespace/name`, or `name` for cluster-scoped objects. */
export function objectKey(object: KubeObjectLike): string {
  const { namespace, name } = object.metadata ?? {};
  return namespace ? `${namespace}/${name}` : `${name}`;
}

/**
 * A list+watch mirror of one collection (a minimal reflector): lists (in pages), then watches from the list's
 * resourceVersion with bookmarks. A watch the server ends resumes from the last seen version; a 410 Gone
 * relists; a watch or list that fails (connection reset, timeout, error event) is logged and restarted with a
 * relist after a back-off (200 ms → 5 s with jitter, reset once a list succeeds), for as long as the collection
 * runs: the mirror never stops following. Every watch carries a server timeout and a client deadline, so a
 * half-dead connection cannot hang it. `onChange` sees every upsert and deletion, including those a relist
 * discovers; an exception in it is logged and does not end the watch (the next resync or event heals it).
 */
export class WatchedCollection<T extends KubeObjectLike> {
  private readonly store = new Map<string, T>();
  private abort = new AbortController();
  private stopped = false;
  private synced = false;
  private readonly syncedWaiters: Array<() => void> = [];

  constructor(
    private readonly client: KubeRestClient,
    private readonly listPath: string,
    private readonly onChange: (object: T, change: CollectionChange) => void,
    private readonly warn: WarnLogger,
  ) {}

  /** Starts the list/watch loop in the background. */
  start(): void {
    void this.run();
  }

  /** Resolves after the first successful list. */
  waitForSync(): Promise<void> {
    return this.synced ? Promise.resolve() : new Promise((resolve) => this.syncedWaiters.push(resolve));
  }

  /** The current mirror. */
  get(key: string): T | undefined {
    return this.store.get(key);
  }

  values(): T[] {
    return [...this.store.values()];
  }

  stop(): void {
    this.stopped = true;
    this.abort.abort();
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      try {
        let resourceVersion = await this.relist();
        failures = 0;
        for (;;) {
          if (this.stopped) return;
          const outcome = await this.watchOnce(resourceVersion);
          if (outcome === 'gone') break;
          resourceVersion = outcome;
        }
      } catch (error) {
        if (this.stopped) return;
        failures++;
        const delay = backoffDelayMilliseconds(RESTART_BACKOFF, failures);
        this.warn(`watch of ${this.listPath} failed (${failures} in a row); relisting in ${delay} ms`, error);
        await sleep(delay);
      }
    }
  }

  /** Lists every page, then replaces the mirror (a failed page leaves the mirror as it was). */
  private async relist(): Promise<string> {
    const items: T[] = [];
    const separator = this.listPath.includes('?') ? '&' : '?';
    let continueToken: string | undefined;
    let resourceVersion = '';
    do {
      const page = await this.client.get<{ items: T[]; metadata: { resourceVersion: string; continue?: string } }>(
        `${this.listPath}${separator}limit=${LIST_PAGE_SIZE}${continueToken ? `&continue=${encodeURIComponent(continueToken)}` : ''}`,
      );
      items.push(...page.items);
      resourceVersion = page.metadata.resourceVersion;
      continueToken = page.metadata.continue || undefined;
    } while (continueToken);
    const seen = new Set<string>();
    for (const item of items) {
      const key = objectKey(item);
      seen.add(key);
      this.store.set(key, item);
      this.notify(item, 'upserted');
    }
    for (const [key, item] of [...this.store]) {
      if (!seen.has(key)) {
        this.store.delete(key);
        this.notify(item, 'deleted');
      }
    }
    if (!this.synced) {
      this.synced = true;
      this.syncedWaiters.splice(0).forEach((resolve) => resolve());
    }
    return resourceVersion;
  }

  private notify(object: T, change: CollectionChange): void {
    try {
      this.onChange(object, change);
    } catch (error) {
      this.warn(`handling ${change} ${objectKey(object)} of ${this.listPath} failed`, error);
    }
  }

  /** Watches once; resolves the last resourceVersion to resume from, or 'gone' when a relist is needed. */
  private async watchOnce(fromResourceVersion: string): Promise<string | 'gone'> {
    let resourceVersion = fromResourceVersion;
    let gone = false;
    this.abort = new AbortController();
    const deadline = setTimeout(() => this.abort.abort(), (WATCH_SECONDS + 15) * 1000);
    const separator = this.listPath.includes('?') ? '&' : '?';
    const path = `${this.listPath}${separator}watch=1&allowWatchBookmarks=true&timeoutSeconds=${WATCH_SECONDS}&resourceVersion=${resourceVersion}`;
    try {
      await this.client.watch<T>(path, (event: WatchEvent<T>) => {
        if (event.type === 'ERROR') {
          const status = event.object as { code?: number };
          if (status.code === 410) gone = true;
          else throw new Error(`watch error event: ${JSON.stringify(event.object)}`);
          return;
        }
        resourceVersion = event.object.metadata?.resourceVersion ?? resourceVersion;
        if (event.type === 'BOOKMARK') return;
        const key = objectKey(event.object);
        if (event.type === 'DELETED') {
          this.store.delete(key);
          this.notify(event.object, 'deleted');
        } else {
          this.store.set(key, event.object);
          this.notify(event.object, 'upserted');
        }
      }, this.abort.signal);
    } catch (error) {
      if (error instanceof KubeApiError && error.statusCode === 410) return 'gone';
      if (this.stopped) return resourceVersion;
      throw error;
    } finally {
      clearTimeout(deadline);
    }
    return gone ? 'gone' : resourceVersion;
  }
}
