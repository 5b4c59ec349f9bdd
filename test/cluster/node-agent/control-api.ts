import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WatchResumeResult, WatchStallView } from '../control-plane/apiserver-proxy';
import type { ControllerIdentityView } from '../network/controller-identities';
import { parseNetworkPeer, type NetworkPeer, type PartitionView } from '../network/partitions';
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

/** What losing a pod's volumes did. */
export interface VolumeLossView {
  /** The persistentVolumeClaim volumes whose contents were deleted. */
  readonly volumes: readonly string[];
  /** The container processes killed so that they restart on the empty volumes. */
  readonly killedPids: readonly number[];
}

/** What the control API drives. */
export interface ControlApiHandlers {
  listPods(): PodProcessView[];
  /** Sends the chaos signal to the container (default: the first) and returns the PID it hit. */
  chaos(namespace: string, name: string, action: ChaosAction, container: string | undefined): number;
  /** Deletes the pod through the apiserver (the agent then terminates it gracefully). */
  deletePod(namespace: string, name: string, gracePeriodSeconds: number | undefined): Promise<void>;
  /** Empties the pod's persistent volumes and kills the containers that mount them. */
  loseVolumes(namespace: string, name: string): Promise<VolumeLossView>;
  listServices(): ProxiedServicePort[];
  restartApiServer(): Promise<void>;
  compactEtcd(): Promise<number>;
  partition(first: NetworkPeer, second: NetworkPeer): Promise<PartitionView>;
  listPartitions(): PartitionView[];
  /** False when the partition was healed already. */
  healPartition(id: string): Promise<boolean>;
  healAllPartitions(): Promise<number>;
  /** The cluster's iptables rules as installed (`iptables -S` lines), to check that healing left nothing. */
  listFirewallRules(): Promise<string[]>;
  registerController(name: string): Promise<ControllerIdentityView>;
  listControllers(): ControllerIdentityView[];
  getController(name: string): ControllerIdentityView;
  unregisterController(name: string): Promise<void>;
  stallWatches(controller: string): WatchStallView;
  resumeWatches(controller: string): WatchResumeResult;
}

/** A request the handlers refuse, answered with its status code (400, 404, 409, ...). */
export class ControlApiError extends Error {
  override readonly name: string = 'ControlApiError';
  constructor(readonly statusCode: number, message: string) {
    super(message);
  }
}

/** Raised by handlers for unknown pods/containers: answered with 404. */
export class NotFoundError extends ControlApiError {
  override readonly name = 'NotFoundError';
  constructor(message: string) {
    super(404, message);
  }
}

const MAX_BODY_BYTES = 64 * 1024;

/**
 * The node agent's HTTP control API on 127.0.0.1 (random port). JSON in and out:
 * - `GET  /healthz`
 * - `GET  /pods`, `GET /pods/{namespace}/{name}` — pod IP, readiness, container PIDs and restart counts
 * - `POST /pods/{namespace}/{name}/kill|freeze|thaw[?container=c]` — SIGKILL / SIGSTOP / SIGCONT
 * - `POST /pods/{namespace}/{name}/delete[?gracePeriodSeconds=n]`
 * - `POST /pods/{namespace}/{name}/lose-volumes` — empty its persistent volumes, kill what mounts them
 * - `GET  /services` — ClusterIP proxies and their current endpoints
 * - `POST /control-plane/restart-apiserver`, `POST /control-plane/compact-etcd`
 * - `POST /partitions` `{"between": [peer, peer]}` (peer: `{"namespace", "pod"}` or `{"controller"}`),
 *   `GET /partitions`, `DELETE /partitions/{id}` (heal one), `DELETE /partitions` (heal all),
 *   `GET /firewall` — the cluster's iptables rules as installed
 * - `POST /controllers` `{"name"}` (register a controller identity), `GET /controllers`, `GET|DELETE /controllers/{name}`,
 *   `POST /controllers/{name}/stall-watches`, `POST /controllers/{name}/resume-watches`
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
        if (action === 'lose-volumes') return reply(200, await this.handlers.loseVolumes(namespace, name));
      }
      if (parts[0] === 'partitions') return await this.partitions(method, parts, request, reply);
      if (method === 'GET' && url.pathname === '/firewall') return reply(200, await this.handlers.listFirewallRules());
      if (parts[0] === 'controllers') return await this.controllers(method, parts, request, reply);
      if (method === 'GET' && url.pathname === '/services') return reply(200, this.handlers.listServices());
      if (method === 'POST' && url.pathname === '/control-plane/restart-apiserver') {
        const started = Date.now();
        await this.handlers.restartApiServer();
        return reply(200, { durationMilliseconds: Date.now() - started });
      }
      if (method === 'POST' && url.pathname === '/control-plane/compact-etcd') return reply(200, { revision: await this.handlers.compactEtcd() });
      return reply(404, { error: `no route ${method} ${url.pathname}` });
    } catch (error) {
      const statusCode = (error as { statusCode?: unknown }).statusCode;
      if (error instanceof ControlApiError || (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500)) {
        return reply(statusCode as number, { error: (error as Error).message });
      }
      this.warn(`control API ${method} ${url.pathname} failed`, error);
      return reply(500, { error: (error as Error).message });
    }
  }

  private async partitions(method: string, parts: string[], request: IncomingMessage, reply: Reply): Promise<void> {
    if (method === 'GET' && parts.length === 1) return reply(200, this.handlers.listPartitions());
    if (method === 'POST' && parts.length === 1) {
      const body = (await readJsonBody(request)) as { between?: unknown };
      if (!Array.isArray(body.between) || body.between.length !== 2) throw new ControlApiError(400, 'a partition needs "between": [peer, peer]');
      return reply(201, await this.handlers.partition(parseNetworkPeer(body.between[0]), parseNetworkPeer(body.between[1])));
    }
    if (method === 'DELETE' && parts.length === 1) return reply(200, { healed: await this.handlers.healAllPartitions() });
    if (method === 'DELETE' && parts.length === 2) return reply(200, { healed: (await this.handlers.healPartition(parts[1])) ? 1 : 0 });
    throw new ControlApiError(404, `no route ${method} /${parts.join('/')}`);
  }

  private async controllers(method: string, parts: string[], request: IncomingMessage, reply: Reply): Promise<void> {
    if (method === 'GET' && parts.length === 1) return reply(200, this.handlers.listControllers());
    if (method === 'POST' && parts.length === 1) {
      const { name } = (await readJsonBody(request)) as { name?: unknown };
      if (typeof name !== 'string') throw new ControlApiError(400, 'a controller identity needs "name"');
      return reply(201, await this.handlers.registerController(name));
    }
    const name = parts[1];
    if (method === 'GET' && parts.length === 2) return reply(200, this.handlers.getController(name));
    if (method === 'DELETE' && parts.length === 2) {
      await this.handlers.unregisterController(name);
      return reply(200, { unregistered: name });
    }
    if (method === 'POST' && parts.length === 3 && parts[2] === 'stall-watches') return reply(200, this.handlers.stallWatches(name));
    if (method === 'POST' && parts.length === 3 && parts[2] === 'resume-watches') return reply(200, this.handlers.resumeWatches(name));
    throw new ControlApiError(404, `no route ${method} /${parts.join('/')}`);
  }
}

type Reply = (status: number, body: unknown) => void;

async function readJsonBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new ControlApiError(413, `request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return text ? JSON.parse(text) : {};
  } catch {
    throw new ControlApiError(400, `request body is not JSON: ${text.slice(0, 100)}`);
  }
}
