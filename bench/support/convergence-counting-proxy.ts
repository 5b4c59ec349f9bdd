import { generateKeyPairSync, randomBytes } from 'node:crypto';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import forge from 'node-forge';

/** Methods that change state on the apiserver. */
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** One request that went through the proxy. */
export interface ProxiedRequest {
  /** `Date.now()` when the request arrived. */
  readonly atMilliseconds: number;
  readonly method: string;
  /** `PATCH(apply)`, `PATCH(merge)`, ... for PATCH; the method otherwise. */
  readonly verb: string;
  /** `statefulsets`, `redisclusters/status`, `events`, ... (namespace, name and query stripped). */
  readonly resource: string;
  readonly write: boolean;
  /** HTTP status of the answer; 0 while unanswered or when the upstream failed. */
  statusCode: number;
}

/** Requests of a time window, counted by `verb resource`. */
export interface RequestTally {
  readonly writes: number;
  readonly reads: number;
  /** Writes answered with a status >= 400 (conflicts, ...). */
  readonly failedWrites: number;
  /** `verb resource` → count, writes only, most frequent first. */
  readonly writesByKind: ReadonlyArray<readonly [string, number]>;
}

/** A self-signed serving certificate for 127.0.0.1 (PEM). */
function selfSignedCertificate(): { certificate: string; key: string } {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs1', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
  const forgeKey = forge.pki.privateKeyFromPem(privateKey) as forge.pki.rsa.PrivateKey;
  const certificate = forge.pki.createCertificate();
  certificate.publicKey = forge.pki.setRsaPublicKey(forgeKey.n, forgeKey.e);
  certificate.serialNumber = '01' + randomBytes(15).toString('hex');
  certificate.validity.notBefore = new Date(Date.now() - 60 * 60 * 1000);
  certificate.validity.notAfter = new Date(Date.now() + 24 * 60 * 60 * 1000);
  const subject = [{ name: 'commonName', value: 'redkite-bench-counting-proxy' }];
  certificate.setSubject(subject);
  certificate.setIssuer(subject);
  certificate.setExtensions([
    { name: 'basicConstraints', cA: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
  ]);
  certificate.sign(forgeKey, forge.md.sha256.create());
  return { certificate: forge.pki.certificateToPem(certificate), key: privateKey };
}

/** `/apis/apps/v1/namespaces/x/statefulsets/y/status?fieldManager=z` → `statefulsets/status`. */
export function resourceOfPath(path: string): string {
  const parts = path.split('?')[0]!.split('/').filter(Boolean);
  // /api/v1/... or /apis/<group>/<version>/...
  const rest = parts[0] === 'api' ? parts.slice(2) : parts[0] === 'apis' ? parts.slice(3) : parts;
  const unNamespaced = rest[0] === 'namespaces' && rest.length > 2 ? rest.slice(2) : rest;
  const [plural, , subresource] = unNamespaced;
  return subresource ? `${plural}/${subresource}` : (plural ?? path);
}

function verbOf(method: string, contentType: string | undefined): string {
  if (method !== 'PATCH') return method;
  const type = contentType ?? '';
  if (type.includes('apply-patch')) return 'PATCH(apply)';
  if (type.includes('merge-patch')) return 'PATCH(merge)';
  if (type.includes('json-patch')) return 'PATCH(json)';
  if (type.includes('strategic-merge-patch')) return 'PATCH(strategic)';
  return 'PATCH';
}

/**
 * A TLS-terminating reverse proxy in front of the apiserver that records every request (method, resource, answer)
 * and forwards it unchanged, bearer token included, so the client keeps exactly its own identity and RBAC.
 * Watches are streamed through. It exists so the benchmark can count the controller's writes without touching the
 * controller or the apiserver's flags.
 */
export class CountingProxy {
  private readonly requests: ProxiedRequest[] = [];
  private readonly server: https.Server;
  private readonly upstreamAgent: https.Agent;
  private readonly upstream: URL;
  /** PEM of the proxy's self-signed certificate: the CA the client must trust. */
  readonly certificatePem: string;

  constructor(upstreamServer: string, upstreamCaPem: string | Buffer) {
    this.upstream = new URL(upstreamServer);
    this.upstreamAgent = new https.Agent({ keepAlive: true, ca: upstreamCaPem, maxSockets: Infinity });
    const { certificate, key } = selfSignedCertificate();
    this.certificatePem = certificate;
    // No request timeout: watches are long-lived requests.
    this.server = https.createServer({ cert: certificate, key, requestTimeout: 0 }, (request, response) => this.forward(request, response));
  }

  /** Listens on 127.0.0.1 (a free port) and resolves the URL to put in the client's kubeconfig. */
  async listen(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
    return `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.upstreamAgent.destroy();
  }

  /** A timestamp to pass later to {@link tally}. */
  mark(): number {
    return Date.now();
  }

  /** Requests that arrived in `[fromMilliseconds, toMilliseconds)`. */
  tally(fromMilliseconds: number, toMilliseconds = Date.now()): RequestTally {
    const inWindow = this.requests.filter((request) => request.atMilliseconds >= fromMilliseconds && request.atMilliseconds < toMilliseconds);
    const writes = inWindow.filter((request) => request.write);
    const byKind = new Map<string, number>();
    for (const write of writes) byKind.set(`${write.verb} ${write.resource}`, (byKind.get(`${write.verb} ${write.resource}`) ?? 0) + 1);
    return {
      writes: writes.length,
      reads: inWindow.length - writes.length,
      failedWrites: writes.filter((write) => write.statusCode >= 400).length,
      writesByKind: [...byKind.entries()].sort((a, b) => b[1] - a[1]),
    };
  }

  private forward(request: http.IncomingMessage, response: http.ServerResponse): void {
    const method = request.method ?? 'GET';
    const record: ProxiedRequest = {
      atMilliseconds: Date.now(),
      method,
      verb: verbOf(method, request.headers['content-type']),
      resource: resourceOfPath(request.url ?? '/'),
      write: WRITE_METHODS.has(method),
      statusCode: 0,
    };
    this.requests.push(record);
    const headers = { ...request.headers, host: this.upstream.host };
    delete headers.connection;
    const outgoing = https.request(
      { protocol: 'https:', hostname: this.upstream.hostname, port: this.upstream.port, method, path: request.url, headers, agent: this.upstreamAgent },
      (upstreamResponse) => {
        record.statusCode = upstreamResponse.statusCode ?? 0;
        response.writeHead(upstreamResponse.statusCode ?? 502, upstreamResponse.headers);
        // Flush headers at once: a watch may stay silent for a long time after them.
        response.flushHeaders();
        upstreamResponse.pipe(response);
        upstreamResponse.on('error', () => response.destroy());
      },
    );
    outgoing.on('error', (error) => {
      if (!response.headersSent) {
        response.writeHead(502, { 'Content-Type': 'text/plain' });
        response.end(`counting proxy: upstream failed: ${error.message}`);
      } else {
        response.destroy();
      }
    });
    // The client went away (a watch it aborted): drop the upstream request too.
    response.on('close', () => {
      if (!response.writableFinished) outgoing.destroy();
    });
    request.pipe(outgoing);
  }
}
