/**
 * One error variant per watcher phase (as kube-rs' `watcher::Error`), so a log line says which phase failed and
 * what the watcher does about it.
 */
export class InitialListFailedError extends Error {
  constructor(description: string, options: { readonly cause: unknown }) {
    super(`listing ${description} failed; relisting after backoff`, options);
    this.name = 'InitialListFailedError';
  }
}

export class WatchStartFailedError extends Error {
  constructor(description: string, options: { readonly cause: unknown }) {
    super(`watching ${description} failed; rewatching after backoff`, options);
    this.name = 'WatchStartFailedError';
  }
}

/** 410 Gone: the resourceVersion we resume from is compacted away; only a full relist recovers. */
export class WatchExpiredError extends Error {
  constructor(description: string, resourceVersion: string) {
    super(`watch of ${description} at resourceVersion ${resourceVersion} expired (410 Gone); relisting`);
    this.name = 'WatchExpiredError';
  }
}

/** The server sent an `ERROR` event that is not 410. */
export class WatchErrorEventError extends Error {
  constructor(description: string, status: unknown) {
    super(`watch of ${description} received an error event: ${JSON.stringify(status)}; rewatching after backoff`);
    this.name = 'WatchErrorEventError';
  }
}

/** Nothing arrived (not even a bookmark) for longer than the watch's own timeout: the connection is presumed dead. */
export class WatchSilentError extends Error {
  constructor(description: string, silentMs: number) {
    super(`watch of ${description} was silent for ${silentMs} ms; rewatching after backoff`);
    this.name = 'WatchSilentError';
  }
}
