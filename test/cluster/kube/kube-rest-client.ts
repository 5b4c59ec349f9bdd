import { readFileSync } from 'node:fs';
import { Agent, request as httpsRequest } from 'node:https';
import type { IncomingMessage } from 'node:http';

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
  ) {
    super(`${method} ${path}: ${statusCode} ${reason}: ${message}`);
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

  /** Sends one request and parses the JSON answer. */
  request<T>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
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
            reject(new KubeApiError(method, path, status, reason, message));
          }, reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within ${REQUEST_TIMEOUT_MILLISECONDS} ms`)));
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

function readAll(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.on('error', reject);
  });
}
