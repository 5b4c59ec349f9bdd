import { apiGroupOf } from '../kubernetes-object';
import type { KubernetesRestClient } from './rest-client';

/** Where a kind lives in the REST API. */
export interface ResourceInfo {
  /** `'/api/v1'` or `'/apis/apps/v1'`. */
  readonly groupVersionPath: string;
  /** Plural resource name, e.g. `'statefulsets'`. */
  readonly plural: string;
  readonly namespaced: boolean;
}

interface ApiResourceList {
  readonly resources: ReadonlyArray<{ readonly name: string; readonly kind: string; readonly namespaced: boolean }>;
}

/**
 * Maps apiVersion + kind to REST paths using the discovery API (as `kubectl` does), so the runtime handles custom
 * resources without generated clients. Results are cached per group version; an unknown kind refreshes the cache
 * once, because a CRD may have been installed since.
 */
export class ResourceResolver {
  private readonly cache = new Map<string, Promise<ApiResourceList>>();

  constructor(private readonly rest: KubernetesRestClient) {}

  async resolve(apiVersion: string, kind: string): Promise<ResourceInfo> {
    const groupVersionPath = apiGroupOf(apiVersion) === '' ? `/api/${apiVersion}` : `/apis/${apiVersion}`;
    let resource = (await this.discover(groupVersionPath, false)).resources.find((r) => r.kind === kind && !r.name.includes('/'));
    if (!resource) {
      resource = (await this.discover(groupVersionPath, true)).resources.find((r) => r.kind === kind && !r.name.includes('/'));
    }
    if (!resource) throw new Error(`the API server does not serve kind ${kind} in ${apiVersion}`);
    return { groupVersionPath, plural: resource.name, namespaced: resource.namespaced };
  }

  /** `/apis/apps/v1/namespaces/ns/statefulsets` (namespace omitted for all namespaces or cluster-scoped kinds). */
  async collectionPath(apiVersion: string, kind: string, namespace?: string): Promise<string> {
    const info = await this.resolve(apiVersion, kind);
    const namespacePart = info.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
    return `${info.groupVersionPath}${namespacePart}/${info.plural}`;
  }

  /** `/apis/apps/v1/namespaces/ns/statefulsets/name[/subresource]`. */
  async objectPath(apiVersion: string, kind: string, namespace: string | undefined, name: string, subresource?: string): Promise<string> {
    const collection = await this.collectionPath(apiVersion, kind, namespace);
    return `${collection}/${encodeURIComponent(name)}${subresource ? `/${subresource}` : ''}`;
  }

  private discover(groupVersionPath: string, refresh: boolean): Promise<ApiResourceList> {
    let cached = this.cache.get(groupVersionPath);
    if (!cached || refresh) {
      const discovery = this.rest.request<ApiResourceList>({ method: 'GET', path: groupVersionPath });
      // A failed discovery must not be cached forever; the caller still receives the rejection.
      discovery.catch(() => {
        if (this.cache.get(groupVersionPath) === discovery) this.cache.delete(groupVersionPath);
      });
      this.cache.set(groupVersionPath, discovery);
      cached = discovery;
    }
    return cached;
  }
}
