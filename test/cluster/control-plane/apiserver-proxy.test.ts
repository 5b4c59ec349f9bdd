import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitUntil } from '../../support/wait-until';
import { createClusterPki, type ClusterPki } from '../pki';
import { ApiServerProxy } from './apiserver-proxy';

/** An in-process stand-in for the apiserver: `?watch=true` responses are kept for the test to write to. */
class FakeApiServer {
  readonly watches: ServerResponse[] = [];
  readonly requests: string[] = [];
  private readonly server: Server;

  constructor(pki: ClusterPki) {
    this.server = createServer({ cert: readFileSync(pki.apiServerCertificate), key: readFileSync(pki.apiServerKey) }, (incoming: IncomingMessage, response) => {
      this.requests.push(`${incoming.method} ${incoming.url} ${incoming.headers.authorization ?? ''}`);
      if (incoming.url?.includes('watch=true')) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.flushHeaders();
        this.watches.push(response);
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ kind: 'ConfigMapList', items: [] }));
    });
  }

  listen(): Promise<string> {
    return new Promise((resolve) => this.server.listen(0, '127.0.0.1', () => resolve(`https://127.0.0.1:${(this.server.address() as AddressInfo).port}`)));
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

/** A client watch: what arrived, and whether the response ended. */
function openWatch(url: string, ca: Buffer): Promise<{ received: () => string; ended: () => boolean; close: () => void }> {
  return new Promise((resolve, reject) => {
    let text = '';
    let ended = false;
    const outgoing = request(`${url}/api/v1/configmaps?watch=true`, { ca, headers: { authorization: 'Bearer token-1' } }, (response) => {
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => (ended = true));
      response.on('error', () => (ended = true));
      resolve({ received: () => text, ended: () => ended, close: () => outgoing.destroy() });
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('ApiServerProxy', () => {
  let folder: string;
  let pki: ClusterPki;
  let upstream: FakeApiServer;
  let proxy: ApiServerProxy;
  let proxyUrl: string;

  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'apiserver-proxy-test-'));
    pki = createClusterPki(folder, { ipAddresses: ['127.0.0.1'] });
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  beforeEach(async () => {
    upstream = new FakeApiServer(pki);
    proxy = new ApiServerProxy({
      upstreamUrl: await upstream.listen(),
      caCertificateFile: pki.caCertificate,
      servingCertificateFile: pki.apiServerProxyCertificate,
      servingKeyFile: pki.apiServerProxyKey,
      warn: () => undefined,
    });
    proxyUrl = await proxy.listen();
  });
  afterEach(async () => {
    await proxy.close();
    await upstream.close();
  });

  it('holds the events and the end of a watch the apiserver closes during a stall, and delivers both on resume', async () => {
    const watch = await openWatch(proxyUrl, readFileSync(pki.caCertificate));
    await waitUntil('the watch reaching the apiserver', () => upstream.watches.length === 1);
    upstream.watches[0].write('{"type":"ADDED"}\n');
    await waitUntil('an event before the stall', () => watch.received() === '{"type":"ADDED"}\n');

    proxy.stallWatches();
    upstream.watches[0].write('{"type":"MODIFIED"}\n{"type":"DELETED"}\n');
    upstream.watches[0].end();
    await waitUntil('two events held', () => proxy.view().heldEvents === 2);
    expect([watch.received(), watch.ended()]).toEqual(['{"type":"ADDED"}\n', false]);

    expect(proxy.resumeWatches()).toEqual({ stalled: false, openWatches: 1, heldEvents: 0, deliveredEvents: 2 });
    await waitUntil('the watch ending after its held events', () => watch.ended());
    expect(watch.received()).toBe('{"type":"ADDED"}\n{"type":"MODIFIED"}\n{"type":"DELETED"}\n');
  });

  it('passes other requests, with their bearer token, while watches are stalled', async () => {
    proxy.stallWatches();
    const body = await new Promise<string>((resolve, reject) => {
      const outgoing = request(`${proxyUrl}/api/v1/configmaps`, { ca: readFileSync(pki.caCertificate), headers: { authorization: 'Bearer token-1' } }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve(text));
      });
      outgoing.on('error', reject);
      outgoing.end();
    });
    expect(JSON.parse(body)).toEqual({ kind: 'ConfigMapList', items: [] });
    expect(upstream.requests).toEqual(['GET /api/v1/configmaps Bearer token-1']);
  });

  it('forgets a held watch its client gave up on, and closes it upstream', async () => {
    const watch = await openWatch(proxyUrl, readFileSync(pki.caCertificate));
    await waitUntil('the watch reaching the apiserver', () => upstream.watches.length === 1);
    proxy.stallWatches();
    upstream.watches[0].write('{"type":"MODIFIED"}\n');
    await waitUntil('one event held', () => proxy.view().heldEvents === 1);
    watch.close();
    await waitUntil('the watch dropped', () => proxy.view().openWatches === 0);
    await waitUntil('the upstream watch closed', () => upstream.watches[0].destroyed);
    expect(proxy.resumeWatches().deliveredEvents).toBe(0);
  });
});
