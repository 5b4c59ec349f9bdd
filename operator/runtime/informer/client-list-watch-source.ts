import type { KubernetesClient } from '../client/kubernetes-client';
import type { KubernetesObject } from '../kubernetes-object';
import type { ListPage, ListRequest, ListWatchSource, RawWatchEvent, WatchRequest } from './list-watch-source';

/** What to list and watch. */
export interface ListWatchTarget {
  readonly apiVersion: string;
  readonly kind: string;
  /**
   * Watch one namespace only.
   * @default all namespaces
   */
  readonly namespace?: string;
  /** @default everything */
  readonly labelSelector?: string;
  /** @default everything */
  readonly fieldSelector?: string;
}

/** {@link ListWatchSource} backed by the Kubernetes API. */
export class ClientListWatchSource<T extends KubernetesObject> implements ListWatchSource<T> {
  public readonly description: string;

  constructor(
    private readonly client: KubernetesClient,
    private readonly target: ListWatchTarget,
  ) {
    const where = target.namespace ? `in namespace "${target.namespace}"` : 'in all namespaces';
    const selectors = [target.labelSelector, target.fieldSelector].filter(Boolean).join(',');
    this.description = `${target.apiVersion} ${target.kind} ${where}${selectors ? ` (${selectors})` : ''}`;
  }

  async list(request: ListRequest): Promise<ListPage<T>> {
    return this.client.list<T>(this.target.apiVersion, this.target.kind, {
      namespace: this.target.namespace,
      labelSelector: this.target.labelSelector,
      fieldSelector: this.target.fieldSelector,
      limit: request.limit,
      continueToken: request.continueToken,
      signal: request.signal,
    });
  }

  async watch(request: WatchRequest, onEvent: (event: RawWatchEvent<T>) => void): Promise<void> {
    const path = await this.client.resources.collectionPath(this.target.apiVersion, this.target.kind, this.target.namespace);
    await this.client.rest.stream(
      {
        path,
        query: {
          watch: true,
          resourceVersion: request.resourceVersion,
          allowWatchBookmarks: request.allowWatchBookmarks,
          timeoutSeconds: request.timeoutSeconds,
          labelSelector: this.target.labelSelector,
          fieldSelector: this.target.fieldSelector,
        },
        signal: request.signal,
      },
      (line) => onEvent(line as RawWatchEvent<T>),
    );
  }
}
