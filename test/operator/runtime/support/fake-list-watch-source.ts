import type {
  ListPage,
  ListRequest,
  ListWatchSource,
  RawWatchEvent,
  WatchRequest,
} from '../../../../operator/runtime/informer/list-watch-source';
import type { KubernetesObject } from '../../../../operator/runtime/kubernetes-object';

/** A watch the test drives by hand. */
export interface ScriptedWatch {
  readonly request: WatchRequest;
  send(event: RawWatchEvent<KubernetesObject>): void;
  /** The server ends the stream normally (its timeout elapsed). */
  close(): void;
  /** The connection breaks. */
  fail(error: Error): void;
}

/**
 * An in-memory apiserver for one kind: the test mutates `objects`, scripts list failures, and drives each watch
 * through {@link ScriptedWatch}.
 */
export class FakeListWatchSource implements ListWatchSource<KubernetesObject> {
  readonly description = 'fake ConfigMaps';
  readonly objects = new Map<string, KubernetesObject>();
  readonly listRequests: ListRequest[] = [];
  readonly watches: ScriptedWatch[] = [];
  /** Errors the next list calls throw, in order. */
  readonly listFailures: Error[] = [];
  resourceVersion = 100;

  put(object: KubernetesObject): void {
    this.objects.set(object.metadata!.name!, object);
  }

  remove(name: string): void {
    this.objects.delete(name);
  }

  get currentWatch(): ScriptedWatch | undefined {
    return this.watches[this.watches.length - 1];
  }

  async list(request: ListRequest): Promise<ListPage<KubernetesObject>> {
    this.listRequests.push(request);
    const failure = this.listFailures.shift();
    if (failure) throw failure;
    const all = [...this.objects.values()];
    const start = request.continueToken ? Number(request.continueToken) : 0;
    const items = all.slice(start, start + request.limit);
    const next = start + request.limit;
    return {
      items,
      resourceVersion: String(this.resourceVersion),
      continueToken: next < all.length ? String(next) : undefined,
    };
  }

  watch(request: WatchRequest, onEvent: (event: RawWatchEvent<KubernetesObject>) => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let ended = false;
      const end = (action: () => void): void => {
        if (ended) return;
        ended = true;
        action();
      };
      // Like a real stream: an abort ends the request promptly.
      request.signal.addEventListener('abort', () => end(resolve), { once: true });
      this.watches.push({
        request,
        send: (event) => {
          if (!ended) onEvent(event);
        },
        close: () => end(resolve),
        fail: (error) => end(() => reject(error)),
      });
    });
  }
}
