import type { KubernetesObject } from '../kubernetes-object';

/** One page of a paged list. */
export interface ListPage<T extends KubernetesObject> {
  readonly items: readonly T[];
  /** The list's resourceVersion: where a watch continues from. */
  readonly resourceVersion: string;
  /** Set when more pages follow. */
  readonly continueToken?: string;
}

export interface ListRequest {
  readonly limit: number;
  readonly continueToken?: string;
  readonly signal: AbortSignal;
}

export interface WatchRequest {
  readonly resourceVersion: string;
  /** Asks the server to end the watch after this long, so a half-dead connection cannot live forever. */
  readonly timeoutSeconds: number;
  readonly allowWatchBookmarks: boolean;
  readonly signal: AbortSignal;
}

/** One decoded line of a watch stream. `object` is a `Status` for `ERROR` events. */
export interface RawWatchEvent<T extends KubernetesObject> {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  readonly object: T;
}

/**
 * Where an informer's objects come from: the Kubernetes API in production (`client-list-watch-source.ts`), a fake in
 * tests.
 */
export interface ListWatchSource<T extends KubernetesObject> {
  /** Human-readable description for logs, e.g. `apps/v1 StatefulSet in namespace "a"`. */
  readonly description: string;
  list(request: ListRequest): Promise<ListPage<T>>;
  /**
   * Streams events to `onEvent` until the server closes the stream (resolves) or the connection fails (rejects).
   * Aborting `request.signal` must end it promptly, either way.
   */
  watch(request: WatchRequest, onEvent: (event: RawWatchEvent<T>) => void): Promise<void>;
}
