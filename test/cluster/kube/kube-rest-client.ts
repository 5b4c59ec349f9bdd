import { readFileSync } from 'node:fs';
import { Agent, request as httpsRequest } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { backoffDelayMilliseconds, sleep, type BackoffSettings } from './retry-backoff';

/** TLS material of a client identity (PEM files). */
export interface ClientIdentity {
  readonly caCertificateFile: string;
  readonly certificateFile: string;
  readonly keyFile: string;
}

/** A non-2xx answer of the apiserver, with its Status reason (`NotFound`, `Conflict`, `Expired`, ...). */
export class KubeApiError extends Error {
  override readonly name = 'KubeApiError';
  constructor(
    readonly method: string,
    readonly path: string,
    readonly statusCode: number,
    readonly reason: string,
    message: string,
    /** The server's `Retry-After` (429, 503), in seconds. */
    readonly retryAfterSeconds?: number,
  ) {
    super(`${method} ${path}: ${statusCode} ${reason}: ${message}`);
  }
}

/** The apiserver could not be reached or did not answer (reset, refused, timed out), even after retries. */
export class KubeConnectionError extends Error {
  override readonly name = 'KubeConnectionError';
  constructor(readonly method: string, readonly path: string, readonly attempts: number, cause: unknown) {
    super(`${method} ${path}: ${(cause as Error).message ?? String(cause)} (${attempts} attempt${attempts === 1 ? '' : 's'})`, { cause });
  }
}

/** One event of a watch stream. */
export interface WatchEvent<T> {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  readonly object: T;
}

/** Body encodings the apiserver accepts for PATCH. */
export type PatchContentType = 'application/merge-patch+json' | 'application/strategic-merge-patch+json' | 'application/apply-patch+yaml';

const REQUEST_TIMEOUT_MILLISECONDS = 30_000;
/**
 * Connections to the apiserver, watches included. Unbounded, a burst of pods opened one TLS connection per
 * request (each a handshake on 2 shared cores); callers bound their own kinds of request below this.
 */
const MAX_SOCKETS = 32;
const MAX_REQUEST_ATTEMPTS = 4;
const REQUEST_RETRY_BACKOFF: BackoffSettings = { initialMilliseconds: 100, maxMilliseconds: 2000 };
const MAX_RETRY_AFTER_MILLISECONDS = 5000;
/** Answers that mean "try again shortly": throttled, or the apiserver (or etcd behind it) momentarily unavailable. */
const RETRYABLE_STATUS_CODES = new Set([429, 503, 504]);
/** Socket errors of a connection that broke or never opened; `socket hang up` is ECONNRESET too. */
const RETRYABLE_ERROR_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED', 'REQUEST_TIMEOUT']);

/**
 * A deliberately small REST client for the harness's own use (node agent, control plane readiness). It speaks
 * JSON over HTTPS with a client certificate, turns errors into {@link KubeApiError}, and streams watches line
 * by line. The tests use @kubernetes/client-node instead; the harness needs exact control over content types,
 * timeouts and watch reconnection, which is simpler to own than to configure.
 */
export class KubeRestClient {
  private readonly agent: Agent;

  constructor(readonly baseUrl: string, identity: ClientIdentity) {
    this.agent = new Agent({
      keepAlive: true,
      maxSockets: MAX_SOCKETS,
      maxFreeSockets: MAX_SOCKETS,
      ca: readFileSync(identity.caCertificateFile),
      cert: readFileSync(identity.certificateFile),
      key: readFileSync(identity.keyFile),
    });
  }

  /** GET; rejects with KubeApiError on non-2xx. */
  get<T>(path: string): Promise<T> {
    return this.request<T>('GET', path);
  }

  /** GET that resolves `undefined` on 404. */
  async getIfExists<T>(path: string): Promise<T | undefined> {
    try {
      return await this.get<T>(path);
    } catch (error) {
      if (error instanceof KubeApiError && error.statusCode === 404) return undefined;
      throw error;
    }
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('POST', path, body);
  }

  put<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>('PUT', path, body);
  }

  patch<T>(path: string, body: unknown, contentType: PatchContentType = 'application/merge-patch+json'): Promise<T> {
    return this.request<T>('PATCH', path, body, contentType);
  }

  delete<T>(path: string, body?: unknown): Promise<T> {
    return this.request<T>('DELETE', path, body);
  }

  /**
   * Sends a request and parses the JSON answer. A broken or refused connection, a timeout, 429, 503 and 504 are
   * retried (4 attempts, 100 ms → 2 s back-off, `Retry-After` honoured): under load the apiserver resets reused
   * keep-alive connections and throttles, and one such blip must not cost a binding or a status. A retried
   * write may already have been applied; every caller treats the resulting 409/404 as success. Other API errors
   * reject at once with {@link KubeApiError}; connection failures reject with {@link KubeConnectionError}.
   */
  async request<T>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.requestOnce<T>(method, path, body, contentType);
      } catch (error) {
        const delay = retryDelayMilliseconds(error, attempt);
        if (delay === undefined || attempt >= MAX_REQUEST_ATTEMPTS) {
          throw error instanceof KubeApiError ? error : new KubeConnectionError(method, path, attempt, error);
        }
        await sleep(delay);
      }
    }
  }

  private requestOnce<T>(method: string, path: string, body: unknown, contentType: string): Promise<T> {
    const payload = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    return new Promise<T>((resolve, reject) => {
      const req = httpsRequest(
        new URL(path, this.baseUrl),
        {
          method,
          agent: this.agent,
          timeout: REQUEST_TIMEOUT_MILLISECONDS,
          headers: { accept: 'application/json', ...(payload ? { 'content-type': contentType, 'content-length': payload.length } : {}) },
        },
        (response) => {
          readAll(response).then((text) => {
            const status = response.statusCode ?? 0;
            if (status >= 200 && status < 300) {
              resolve((text ? JSON.parse(text) : undefined) as T);
              return;
            }
            let reason = 'Unknown';
            let message = text;
            try {
              const parsed = JSON.parse(text) as { reason?: string; message?: string };
              reason = parsed.reason ?? reason;
              message = parsed.message ?? message;
            } catch {
              // Not a Status object (e.g. plain-text readyz output): keep the text.
            }
            const retryAfter = Number(response.headers['retry-after']);
            reject(new KubeApiError(method, path, status, reason, message, Number.isFinite(retryAfter) ? retryAfter : undefined));
          }, reject);
        },
      );
      req.on('timeout', () => req.destroy(Object.assign(new Error(`no answer within ${REQUEST_TIMEOUT_MILLISECONDS} ms`), { code: 'REQUEST_TIMEOUT' })));
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** GET returning the raw text (for /readyz, /version). */
  getText(path: string): Promise<{ statusCode: number; text: string }> {
    return new Promise((resolve, reject) => {
      const req = httpsRequest(new URL(path, this.baseUrl), { agent: this.agent, timeout: 5000 }, (response) => {
        readAll(response).then((text) => resolve({ statusCode: response.statusCode ?? 0, text }), reject);
      });
      req.on('timeout', () => req.destroy(new Error(`GET ${path}: timed out`)));
      req.on('error', reject);
      req.end();
    });
  }

  /**
   * Streams a watch until the server ends it, the connection breaks, or `signal` aborts. Resolves when the
   * stream ends normally; rejects on connection errors or a non-200 answer (KubeApiError, e.g. 410 Gone).
   */
  watch<T>(path: string, onEvent: (event: WatchEvent<T>) => void, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const req = httpsRequest(new URL(path, this.baseUrl), { agent: this.agent, signal, headers: { accept: 'application/json' } }, (response) => {
        if (response.statusCode !== 200) {
          readAll(response).then((text) => reject(new KubeApiError('WATCH', path, response.statusCode ?? 0, 'WatchFailed', text)), reject);
          return;
        }
        let buffered = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          buffered += chunk;
          let newline = buffered.indexOf('\n');
          while (newline >= 0) {
            const line = buffered.slice(0, newline).trim();
            buffered = buffered.slice(newline + 1);
            try {
              if (line) onEvent(JSON.parse(line) as WatchEvent<T>);
            } catch (error) {
              // A handler failure ends this watch like a broken connection would: the caller resumes or relists.
              response.removeAllListeners('data');
              req.destroy();
              reject(error);
              return;
            }
            newline = buffered.indexOf('\n');
          }
        });
        response.on('end', () => resolve());
        response.on('error', reject);
        response.on('aborted', () => reject(new Error(`watch ${path} aborted`)));
      });
      req.on('error', (error) => (signal.aborted ? resolve() : reject(error)));
      req.end();
    });
  }

  /** Closes idle keep-alive sockets. */
  close(): void {
    this.agent.destroy();
  }
}

/** How long to wait before retrying after `error`, or undefined when retrying cannot help. */
export function retryDelayMilliseconds(error: unknown, attempt: number): number | undefined {
  if (error instanceof KubeApiError) {
    if (!RETRYABLE_STATUS_CODES.has(error.statusCode)) return undefined;
    if (error.retryAfterSeconds !== undefined) return Math.min(error.retryAfterSeconds * 1000, MAX_RETRY_AFTER_MILLISECONDS);
    return backoffDelayMilliseconds(REQUEST_RETRY_BACKOFF, attempt);
  }
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && RETRYABLE_ERROR_CODES.has(code) ? backoffDelayMilliseconds(REQUEST_RETRY_BACKOFF, attempt) : undefined;
}

function readAll(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.on('error', reject);
  });
}
