import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { KubernetesApiError } from '../../operator/runtime/errors';
import { KubernetesRestClient, PatchContentType } from '../../operator/runtime/client/rest-client';
import { waitUntil } from '../../test/support/wait-until';

/** A Kubernetes object as plain JSON. */
export interface PlainObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly [key: string]: unknown };
  readonly [key: string]: unknown;
}

/** Field manager of everything the benchmark itself applies (the baseline's "plain client"). */
export const BENCH_FIELD_MANAGER = 'redkite-bench';

const PLURALS: Readonly<Record<string, string>> = {
  ConfigMap: 'configmaps',
  Service: 'services',
  Secret: 'secrets',
  Pod: 'pods',
  StatefulSet: 'statefulsets',
  PodDisruptionBudget: 'poddisruptionbudgets',
  RedisCluster: 'redisclusters',
};

/** `/api/v1/namespaces/<ns>/<plural>` or `/apis/<group>/<version>/namespaces/<ns>/<plural>`. */
export function collectionPath(apiVersion: string, kind: string, namespace: string): string {
  const plural = PLURALS[kind];
  if (!plural) throw new Error(`the benchmark does not know the plural of ${kind}`);
  const prefix = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  return `${prefix}/namespaces/${namespace}/${plural}`;
}

/** The admin connection to the bench cluster: raw JSON over the operator runtime's REST client. */
export class AdminClient {
  readonly rest: KubernetesRestClient;
  readonly config: KubeConfig;

  constructor(kubeconfigPath: string) {
    this.config = new KubeConfig();
    this.config.loadFromFile(kubeconfigPath);
    this.rest = new KubernetesRestClient(this.config);
  }

  get server(): string {
    return this.config.getCurrentCluster()!.server;
  }

  /** PEM of the apiserver's CA. */
  caPem(): string {
    const cluster = this.config.getCurrentCluster()!;
    return cluster.caData ? Buffer.from(cluster.caData, 'base64').toString('utf8') : readFileSync(cluster.caFile!, 'utf8');
  }

  /** Server-side apply with force, as `kubectl apply --server-side --force-conflicts` does. */
  async apply(object: PlainObject): Promise<void> {
    const namespace = object.metadata.namespace!;
    await this.rest.request({
      method: 'PATCH',
      path: `${collectionPath(object.apiVersion, object.kind, namespace)}/${object.metadata.name}`,
      query: { fieldManager: BENCH_FIELD_MANAGER, force: true },
      body: object,
      contentType: PatchContentType.serverSideApply,
      timeoutMs: 120_000,
    });
  }

  async create(object: PlainObject): Promise<void> {
    await this.rest.request({ method: 'POST', path: collectionPath(object.apiVersion, object.kind, object.metadata.namespace!), body: object, timeoutMs: 120_000 });
  }

  /** Lists a namespaced collection (no `limit`: the apiserver answers every object in one page). */
  async list<T>(apiVersion: string, kind: string, namespace: string, labelSelector?: string): Promise<T[]> {
    const answer = await this.rest.request<{ items: T[] }>({ method: 'GET', path: collectionPath(apiVersion, kind, namespace), query: { labelSelector }, timeoutMs: 120_000 });
    return answer.items;
  }

  /** Creates a namespace and waits until pods can be created in it (its default ServiceAccount exists). */
  async createNamespace(name: string): Promise<void> {
    await this.rest.request({ method: 'POST', path: '/api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'redkite.dev/bench': 'convergence' } } } });
    await waitUntil(`namespace ${name} has its default ServiceAccount`, async () => {
      await this.rest.request({ method: 'GET', path: `/api/v1/namespaces/${name}/serviceaccounts/default` });
      return true;
    }, { timeoutMilliseconds: 60_000, pollIntervalMilliseconds: 200 });
  }

  /** Deletes a namespace and waits until it is gone (its pods stopped); resolves the seconds it took. */
  async deleteNamespace(name: string, timeoutMilliseconds: number): Promise<number> {
    const started = Date.now();
    await this.rest.request({ method: 'DELETE', path: `/api/v1/namespaces/${name}` });
    await waitUntil(`namespace ${name} deleted`, async () => {
      try {
        await this.rest.request({ method: 'GET', path: `/api/v1/namespaces/${name}` });
        return false;
      } catch (error) {
        if (error instanceof KubernetesApiError && error.statusCode === 404) return true;
        throw error;
      }
    }, { timeoutMilliseconds, pollIntervalMilliseconds: 1000 });
    return (Date.now() - started) / 1000;
  }

  /** A token for the operator's ServiceAccount from the TokenRequest API (what the release's RBAC grants). */
  async operatorToken(): Promise<string> {
    const answer = await this.rest.request<{ status: { token: string } }>({
      method: 'POST',
      path: '/api/v1/namespaces/redkite-system/serviceaccounts/redkite-operator/token',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: [], expirationSeconds: 7200 } },
    });
    return answer.status.token;
  }

  close(): void {
    this.rest.close();
  }
}

/** Writes a kubeconfig that reaches `server` (the counting proxy) with a bearer token; resolves its path. */
export function writeTokenKubeconfig(server: string, caPem: string, token: string): string {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'bench', cluster: { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') } }],
    users: [{ name: 'redkite-operator', user: { token } }],
    contexts: [{ name: 'operator', context: { cluster: 'bench', user: 'redkite-operator' } }],
    'current-context': 'operator',
  };
  const file = join(mkdtempSync(join(tmpdir(), 'redkite-bench-operator-')), 'kubeconfig');
  writeFileSync(file, JSON.stringify(config), { mode: 0o600 });
  return file;
}

/** Runs `task` over `items` with at most `limit` in flight; rejects on the first failure. */
export async function forEachConcurrently<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++]!;
      await task(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

