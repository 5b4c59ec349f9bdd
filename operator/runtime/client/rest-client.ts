import * as http from 'node:http';
import * as https from 'node:https';
import { createInterface } from 'node:readline';
import type { KubeConfig } from '@kubernetes/client-node';
import { KubernetesApiError, KubernetesTransportError } from '../errors';

/** Content types of PATCH requests. Server-side apply must be `apply-patch+yaml` (client-node #529/#705/#862). */
export const PatchContentType = {
  serverSideApply: 'application/apply-patch+yaml',
  mergePatch: 'application/merge-patch+json',
  jsonPatch: 'application/json-patch+json',
  strategicMergePatch: 'application/strategic-merge-patch+json',
} as const;
export type PatchContentType = (typeof PatchContentType)[keyof typeof PatchContentType];

export type QueryParameters = Readonly<Record<string, string | number | boolean | undefined>>;

export interface RestRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly query?: QueryParameters;
  readonly body?: unknown;
  /** @default 'application/json' when there is a body */
  readonly contentType?: string;
  readonly signal?: AbortSignal;
  /**
   * Gives up (with a {@link KubernetesTransportError}) when no complete answer arrived in time.
   * @default 30000
   */
  readonly timeoutMs?: number;
}

export interface StreamRequest {
  readonly path: string;
  readonly query?: QueryParameters;
  readonly signal: AbortSignal;
}

/**
 * The one place that speaks HTTP to the apiserver. Authentication and TLS come from client-node's `KubeConfig`
 * (`applyToHTTPSOptions`, which also runs exec/OIDC credential plugins); the requests themselves are plain
 * `node:https`, because the runtime needs exact content types, subresources, every watch parameter and raw JSON
 * (client-node's generated models turn timestamps into `Date`s and drop unknown fields of built-in kinds).
 */
export class KubernetesRestClient {
  private readonly serverUrl: URL;
  private agent: http.Agent | undefined;

  constructor(private readonly kubeConfig: KubeConfig) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster');
    this.serverUrl = new URL(cluster.server);
  }

  /** Sends a request and returns the decoded JSON answer; throws {@link KubernetesApiError} on non-2xx. */
  async request<T>(request: RestRequest): Promise<T> {
    const bodyText = request.body === undefined ? undefined : JSON.stringify(request.body);
    const headers: http.OutgoingHttpHeaders = { Accept: 'application/json' };
    if (bodyText !== undefined) {
      headers['Content-Type'] = request.contentType ?? 'application/json';
      headers['Content-Length'] = Buffer.byteLength(bodyText);
    }
    const response = await this.send(request.method, request.path, request.query, headers, request.signal, request.timeoutMs ?? 30_000, bodyText);
    const text = await readAll(response).catch((cause: unknown) => {
      throw new KubernetesTransportError(request.method, request.path, { cause });
    });
    const decoded = parseJson(text);
    if (!isSuccess(response.statusCode)) throw new KubernetesApiError(request.method, request.path, response.statusCode ?? 0, decoded);
    return decoded as T;
  }

  /**
   * Opens a streaming GET (a watch) and calls `onLine` with each decoded JSON line. Resolves when the server ends
   * the stream; rejects on a non-2xx answer, a broken connection or an undecodable line — never silently.
   */
  async stream(request: StreamRequest, onLine: (value: unknown) => void): Promise<void> {
    const response = await this.send('GET', request.path, request.query, { Accept: 'application/json' }, request.signal, undefined);
    if (!isSuccess(response.statusCode)) {
      const text = await readAll(response).catch(() => '');
      throw new KubernetesApiError('GET', request.path, response.statusCode ?? 0, parseJson(text));
    }
    await new Promise<void>((resolve, reject) => {
      const lines = createInterface({ input: response, crlfDelay: Infinity });
      let failed = false;
      const fail = (cause: unknown): void => {
        if (failed) return;
        failed = true;
        lines.close();
        response.destroy();
        reject(new KubernetesTransportError('GET', request.path, { cause }));
      };
      const onAbort = (): void => {
        // Aborting is how the caller ends a watch; it is not an error.
        lines.close();
        response.destroy();
        resolve();
      };
      request.signal.addEventListener('abort', onAbort, { once: true });
      lines.on('line', (line) => {
        if (failed || line.trim() === '') return;
        let value: unknown;
        try {
          value = JSON.parse(line);
        } catch (cause) {
          fail(cause);
          return;
        }
        onLine(value);
      });
      response.on('error', fail);
      response.on('aborted', () => fail(new Error('response aborted')));
      lines.on('close', () => {
        request.signal.removeEventListener('abort', onAbort);
        if (!failed) resolve();
      });
    });
  }

  private async send(
    method: string,
    path: string,
    query: QueryParameters | undefined,
    headers: http.OutgoingHttpHeaders,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    bodyText?: string,
  ): Promise<http.IncomingMessage> {
    const url = new URL(this.serverUrl.pathname.replace(/\/$/, '') + path, this.serverUrl);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const options: https.RequestOptions = {};
    try {
      await this.kubeConfig.applyToHTTPSOptions(options);
    } catch (cause) {
      throw new KubernetesTransportError(method, path, { cause });
    }
    const isHttps = url.protocol === 'https:';
    this.agent ??= isHttps
      ? new https.Agent({
          keepAlive: true,
          ca: options.ca,
          cert: options.cert,
          key: options.key,
          pfx: options.pfx,
          passphrase: options.passphrase,
          rejectUnauthorized: options.rejectUnauthorized,
          servername: options.servername,
        })
      : new http.Agent({ keepAlive: true });
    const requestHeaders: http.OutgoingHttpHeaders = { ...((options.headers as http.OutgoingHttpHeaders | undefined) ?? {}), ...headers };
    const transport = isHttps ? https : http;
    return new Promise<http.IncomingMessage>((resolve, reject) => {
      const outgoing = transport.request(url, { method, headers: requestHeaders, agent: this.agent, auth: options.auth, signal });
      if (timeoutMs !== undefined) {
        outgoing.setTimeout(timeoutMs, () => outgoing.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      }
      outgoing.on('response', (response) => {
        if (timeoutMs !== undefined) outgoing.setTimeout(0);
        resolve(response);
      });
      outgoing.on('error', (cause) => reject(new KubernetesTransportError(method, path, { cause })));
      outgoing.end(bodyText);
    });
  }

  /** Closes idle keep-alive connections (so a stopping process does not wait for them). */
  close(): void {
    this.agent?.destroy();
    this.agent = undefined;
  }
}

function isSuccess(statusCode: number | undefined): boolean {
  return statusCode !== undefined && statusCode >= 200 && statusCode < 300;
}

function readAll(response: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.on('error', reject);
    response.on('aborted', () => reject(new Error('response aborted')));
  });
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    // Not JSON (a proxy's HTML error page, say): keep the text so the error message shows it.
    return text;
  }
}
