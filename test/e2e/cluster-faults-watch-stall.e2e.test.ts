import { readFileSync } from 'node:fs';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { request } from 'node:https';
import { createInterface } from 'node:readline';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { E2E_TEST_TIMEOUT_MILLISECONDS, k8s, loadKubeConfig, nodeAgent, useTestNamespace, waitFor } from './support';
import type { ControllerIdentity } from './support/node-agent-client';

jest.setTimeout(E2E_TEST_TIMEOUT_MILLISECONDS);

const admin = loadKubeConfig();
const core = admin.makeApiClient(k8s.CoreV1Api);
const namespace = useTestNamespace('faults-watch-stall');
const agent = nodeAgent();
const caCertificate = ((): Buffer => {
  const cluster = admin.getCurrentCluster()!;
  return cluster.caData ? Buffer.from(cluster.caData, 'base64') : readFileSync(cluster.caFile!);
})();

interface Seen {
  readonly type: string;
  readonly name: string;
  readonly value: string | undefined;
}

/** A watch read line by line over its own HTTPS connection (no client library, no reconnects). */
class RawWatch {
  readonly events: Seen[] = [];
  ended = false;

  private constructor(private readonly outgoing: ClientRequest, readonly response: IncomingMessage) {
    outgoing.on('error', () => (this.ended = true));
    const lines = createInterface({ input: response });
    // close() aborts the response on purpose; readline re-emits the stream's error.
    lines.on('error', () => (this.ended = true));
    lines.on('line', (line) => {
      const event = JSON.parse(line) as { type: string; object: V1ConfigMap };
      this.events.push({ type: event.type, name: event.object.metadata?.name ?? '', value: event.object.data?.value });
    });
    response.on('end', () => (this.ended = true));
    response.on('error', () => (this.ended = true));
  }

  /** Resolves once the response headers arrived. */
  static open(baseUrl: string, token: string, path: string): Promise<RawWatch> {
    return new Promise((resolve, reject) => {
      const outgoing = request(new URL(path, baseUrl), { ca: caCertificate, headers: { authorization: `Bearer ${token}` } });
      outgoing.on('response', (response) => resolve(new RawWatch(outgoing, response)));
      outgoing.on('error', reject);
      outgoing.end();
    });
  }

  close(): void {
    this.outgoing.destroy();
  }
}

/** JSON over the proxy with the same token: the requests the stall must let through. */
async function throughProxy<T>(baseUrl: string, token: string, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
  const response = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const outgoing = request(new URL(path, baseUrl), { method, ca: caCertificate, headers: { authorization: `Bearer ${token}`, 'content-type': contentType } }, (incoming) => {
      let text = '';
      incoming.setEncoding('utf8');
      incoming.on('data', (chunk: string) => (text += chunk));
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, text }));
    });
    outgoing.on('error', reject);
    outgoing.end(body === undefined ? undefined : JSON.stringify(body));
  });
  if (response.status >= 300) throw new Error(`${method} ${path} through the proxy: ${response.status} ${response.text}`);
  return JSON.parse(response.text) as T;
}

describe("a controller's apiserver connection with stalled watches", () => {
  let identity: ControllerIdentity;
  let token: string;
  const watches: RawWatch[] = [];
  const configMaps = (): string => `/api/v1/namespaces/${namespace.name}/configmaps`;

  beforeAll(async () => {
    identity = await agent.registerController(`${namespace.name}-controller`);
    // The controller under test authenticates with a ServiceAccount token; so does this stand-in.
    await core.createNamespacedServiceAccount({ namespace: namespace.name, body: { metadata: { name: 'watcher' } } });
    await admin.makeApiClient(k8s.RbacAuthorizationV1Api).createNamespacedRoleBinding({
      namespace: namespace.name,
      body: {
        metadata: { name: 'watcher-edit' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
        subjects: [{ kind: 'ServiceAccount', name: 'watcher', namespace: namespace.name }],
      },
    });
    token = (await core.createNamespacedServiceAccountToken({ name: 'watcher', namespace: namespace.name, body: { spec: { audiences: [] } } })).status!.token;
  });
  afterAll(async () => {
    watches.forEach((watch) => watch.close());
    await agent.unregisterController(identity.name);
  });

  it('holds watch events while GET, LIST, POST and PATCH pass, then delivers them in order on the same connections', async () => {
    const list = await throughProxy<{ metadata: { resourceVersion: string } }>(identity.apiServerUrl, token, 'GET', configMaps());
    const first = await RawWatch.open(identity.apiServerUrl, token, `${configMaps()}?watch=true&resourceVersion=${list.metadata.resourceVersion}`);
    watches.push(first);
    expect(first.response.statusCode).toBe(200);
    await core.createNamespacedConfigMap({ namespace: namespace.name, body: { metadata: { name: 'before' }, data: { value: '1' } } });
    await waitFor(() => first.events.some((event) => event.name === 'before'), { description: 'the watch delivering events before the stall' });
    const seenBeforeStall = first.events.length;

    expect(await agent.stallWatches(identity)).toMatchObject({ stalled: true, openWatches: 1, heldEvents: 0 });
    const created = await throughProxy<V1ConfigMap>(identity.apiServerUrl, token, 'POST', configMaps(), { metadata: { name: 'during' }, data: { value: 'created' } });
    await throughProxy(identity.apiServerUrl, token, 'PATCH', `${configMaps()}/during`, { data: { value: 'patched' } }, 'application/merge-patch+json');
    expect((await throughProxy<V1ConfigMap>(identity.apiServerUrl, token, 'GET', `${configMaps()}/during`)).data?.value).toBe('patched');
    const listed = await throughProxy<{ items: V1ConfigMap[] }>(identity.apiServerUrl, token, 'GET', configMaps());
    expect(listed.items.map((item) => item.metadata?.name)).toEqual(expect.arrayContaining(['before', 'during']));
    // A watch opened during the stall is accepted (headers, 200) and held too.
    const second = await RawWatch.open(identity.apiServerUrl, token, `${configMaps()}?watch=true&resourceVersion=${created.metadata!.resourceVersion}`);
    watches.push(second);
    expect(second.response.statusCode).toBe(200);

    // The apiserver sent both changes to the first watch and the patch to the second: all held at the proxy.
    const stall = await waitFor(async () => {
      const { watches: state } = await agent.controller(identity.name);
      return state.heldEvents >= 3 ? state : undefined;
    }, { description: 'the proxy holding the events of the stall' });
    expect(stall).toMatchObject({ stalled: true, openWatches: 2 });
    expect(first.events).toHaveLength(seenBeforeStall);
    expect(second.events).toEqual([]);
    expect([first.ended, second.ended]).toEqual([false, false]);

    expect(await agent.resumeWatches(identity)).toMatchObject({ stalled: false, heldEvents: 0, deliveredEvents: stall.heldEvents });
    await waitFor(() => first.events.length >= seenBeforeStall + 2 && second.events.length >= 1, { description: 'held events delivered' });
    expect(first.events.slice(seenBeforeStall)).toEqual([
      { type: 'ADDED', name: 'during', value: 'created' },
      { type: 'MODIFIED', name: 'during', value: 'patched' },
    ]);
    expect(second.events).toEqual([{ type: 'MODIFIED', name: 'during', value: 'patched' }]);

    // And events flow at once again.
    await core.createNamespacedConfigMap({ namespace: namespace.name, body: { metadata: { name: 'after' }, data: { value: '1' } } });
    await waitFor(() => first.events.some((event) => event.name === 'after'), { description: 'events flowing after the resume', timeoutMs: 10_000 });
    expect([first.ended, second.ended]).toEqual([false, false]);
  });

  it('refuses to stall an identity that is not registered', async () => {
    await expect(agent.stallWatches('nobody-registered')).rejects.toThrow(/404.*nobody-registered/);
  });
});
