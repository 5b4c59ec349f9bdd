import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProxiedServicePort } from './service-proxy';

/** A pod as the control API shows it. */
export interface PodProcessView {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly podIp: string | undefined;
  readonly ready: boolean;
  readonly terminating: boolean;
  readonly containers: ReadonlyArray<{ readonly name: string; readonly pid: number | undefined; readonly restartCount: number; readonly ready: boolean }>;
}

/** Chaos actions on a pod's container process. */
export type ChaosAction = 'kill' | 'freeze' | 'thaw';

/** What the control API drives. */
export interface ControlApiHandlers {
  listPods(): PodProcessView[];
  /** Sends the chaos signal to the container (default: the first) and returns the PID it hit. */
  chaos(namespace: string, name: string, action: ChaosAction, container: string | undefined): number;
  /** Deletes the pod through the apiserver (the agent then terminates it gracefully). */
  deletePod(namespace: string, name: string, gracePeriodSeconds: number | undefined): Promise<void>;
  listServices(): ProxiedServicePort[];
  restartApiServer(): Promise<void>;
  compactEtcd(): Promise<number>;
}

/** Raised by handlers for unknown pods/containers: answered with 404. */
export class NotFoundError extends Error {
  override readonly name = 'NotFoundError';
}

/**
 * The node agent's HTTP control API on 127.0.0.1 (random port). JSON in and out:
 * - `GET  /healthz`
 * - `GET  /pods`, `GET /pods/{namespace}/{name}` — pod IP, readiness, container PIDs and restart counts
 * - `POST /pods/{namespace}/{name}/kill|freeze|thaw[?container=c]` — SIGKILL / SIGSTOP / SIGCONT
 * - `POST /pods/{namespace}/{name}/delete[?gracePeriodSeconds=n]`
 * - `GET  /services` — ClusterIP proxies and their current endpoints
 * - `POST /control-plane/restart-apiserver`, `POST /control-plane/compact-etcd`
 */
export class ControlApi {
  private readonly server: Server;

  constructor(private readonly handlers: ControlApiHandlers, private readonly warn: (message: string, error?: unknown) => void) {
    this.server = createServer((request, response) => void this.handle(request, response));
  }

  /** Listens on a random loopback port; resolves the base URL. */
  listen(): Promise<string> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(this.server.address() as AddressInfo).port}`));
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://control');
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const method = request.method ?? 'GET';
    const reply = (status: number, body: unknown): void => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    try {
      if (method === 'GET' && url.pathname === '/healthz') return reply(200, { ok: true });
      if (method === 'GET' && parts[0] === 'pods' && parts.length === 1) return reply(200, this.handlers.listPods());
      if (method === 'GET' && parts[0] === 'pods' && parts.length === 3) {
        const pod = this.handlers.listPods().find((candidate) => candidate.namespace === parts[1] && candidate.name === parts[2] && !candidate.terminating)
          ?? this.handlers.listPods().find((candidate) => candidate.namespace === parts[1] && candidate.name === parts[2]);
        return pod ? reply(200, pod) : reply(404, { error: `no pod ${parts[1]}/${parts[2]} on this node` });
      }
      if (method === 'POST' && parts[0] === 'pods' && parts.length === 4) {
        const [, namespace, name, action] = parts;
        if (action === 'kill' || action === 'freeze' || action === 'thaw') {
          const pid = this.handlers.chaos(namespace, name, action, url.searchParams.get('container') ?? undefined);
          return reply(200, { pid });
        }
        if (action === 'delete') {
          const grace = url.searchParams.get('gracePeriodSeconds');
          await this.handlers.deletePod(namespace, name, grace === null ? undefined : Number(grace));
          return reply(200, { deleted: true });
        }
      }
      if (method === 'GET' && url.pathname === '/services') return reply(200, this.handlers.listServices());
      if (method === 'POST' && url.pathname === '/control-plane/restart-apiserver') {
        const started = Date.now();
        await this.handlers.restartApiServer();
        return reply(200, { durationMilliseconds: Date.now() - started });
      }
      if (method === 'POST' && url.pathname === '/control-plane/compact-etcd') return reply(200, { revision: await this.handlers.compactEtcd() });
      return reply(404, { error: `no route ${method} ${url.pathname}` });
    } catch (error) {
      if (error instanceof NotFoundError) return reply(404, { error: error.message });
      this.warn(`control API ${method} ${url.pathname} failed`, error);
      return reply(500, { error: (error as Error).message });
    }
  }
}
