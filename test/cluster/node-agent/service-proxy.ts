import { connect, createServer, type Server, type Socket } from 'node:net';
import type { V1Service, V1ServicePort } from '@kubernetes/client-node';

/** A pod that may serve a Service. */
export interface EndpointCandidate {
  readonly namespace: string;
  readonly uid: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly podIp: string | undefined;
  readonly ready: boolean;
  /** Resolves a named target port against the pod's container ports. */
  resolvePort(port: number | string): number | undefined;
}

/** One proxied Service port, for the control API. */
export interface ProxiedServicePort {
  readonly namespace: string;
  readonly name: string;
  readonly clusterIp: string;
  readonly port: number;
  readonly endpoints: string[];
}

interface Listener {
  service: V1Service;
  port: V1ServicePort;
  readonly server: Server;
  endpoints: string[];
  nextIndex: number;
}

interface ProxiedConnection {
  readonly client: Socket;
  readonly backend: Socket;
}

/** What the proxy needs besides the pods. */
export interface ServiceProxyOptions {
  readonly candidates: () => Iterable<EndpointCandidate>;
  /**
   * Whether a client address is one of the cluster's (a pod IP, a controller identity's address): the proxy then
   * connects to the endpoint from that same address, as kube-proxy's DNAT keeps the client's source, so that a
   * partition between two addresses also cuts what one sends to the other through a Service.
   */
  readonly isClusterAddress: (address: string) => boolean;
  readonly warn: (message: string, error?: unknown) => void;
}

/**
 * kube-proxy for a loopback cluster: ClusterIPs come from a 127.x range, so for every TCP port of every
 * ClusterIP Service with a selector the agent listens on `clusterIP:port` and forwards each connection to a
 * Ready pod matching the selector (round robin; `publishNotReadyAddresses` includes unready ones). Endpoints are
 * recomputed on every pod change and apply to new connections only: like kube-proxy's conntrack entries, an
 * established connection stays with the pod it was sent to after that pod leaves the endpoints (a label moved,
 * the pod turned NotReady, even the Service was deleted), until either side closes it — so a client holding a
 * connection to an old primary keeps writing to it, as it would on a real cluster.
 * (EndpointSlices cannot be used: the apiserver refuses loopback endpoint addresses.)
 */
export class ServiceProxy {
  private readonly listeners = new Map<string, Listener>();
  private readonly connections = new Set<ProxiedConnection>();

  constructor(private readonly options: ServiceProxyOptions) {}

  /** Reconciles the listeners with the current Services. */
  syncServices(services: readonly V1Service[]): void {
    const wanted = new Map<string, { service: V1Service; port: V1ServicePort }>();
    for (const service of services) {
      const clusterIp = service.spec?.clusterIP;
      if (!clusterIp || clusterIp === 'None' || !service.spec?.selector || !clusterIp.startsWith('127.')) continue;
      for (const port of service.spec.ports ?? []) {
        if ((port.protocol ?? 'TCP') !== 'TCP') continue;
        wanted.set(`${service.metadata?.uid}/${clusterIp}:${port.port}`, { service, port });
      }
    }
    for (const [key, listener] of this.listeners) {
      if (!wanted.has(key)) this.close(key, listener);
    }
    for (const [key, { service, port }] of wanted) {
      const existing = this.listeners.get(key);
      if (existing) {
        existing.service = service;
        existing.port = port;
      } else {
        this.open(key, service, port);
      }
    }
    this.refreshEndpoints();
  }

  /**
   * Recomputes every Service's endpoints (for new connections). Candidates are indexed by
   * namespace and label first, so the cost is Services × matching pods, not Services × pods (1000 Services and
   * 1000 pods in one namespace made each refresh a million selector checks, and every pod change asked for one).
   */
  refreshEndpoints(): void {
    const index = indexCandidates(this.options.candidates());
    for (const listener of this.listeners.values()) {
      const namespace = listener.service.metadata?.namespace ?? '';
      const selector = Object.entries(listener.service.spec?.selector ?? {});
      const includeUnready = listener.service.spec?.publishNotReadyAddresses ?? false;
      // An empty selector matches every pod of the namespace; otherwise start from the pods with its first label.
      const pool = index.get(selector.length === 0 ? namespaceIndexKey(namespace) : labelIndexKey(namespace, selector[0][0], selector[0][1])) ?? [];
      const endpoints: string[] = [];
      for (const pod of pool) {
        if (!pod.podIp || (!pod.ready && !includeUnready)) continue;
        if (!selector.every(([key, value]) => pod.labels[key] === value)) continue;
        const targetPort = pod.resolvePort((listener.port.targetPort as number | string | undefined) ?? listener.port.port);
        if (targetPort !== undefined) endpoints.push(`${pod.podIp}:${targetPort}`);
      }
      endpoints.sort();
      listener.endpoints = endpoints;
    }
  }

  /** What is proxied where (control API). */
  describe(): ProxiedServicePort[] {
    return [...this.listeners.values()].map((listener) => ({
      namespace: listener.service.metadata?.namespace ?? '',
      name: listener.service.metadata?.name ?? '',
      clusterIp: listener.service.spec?.clusterIP ?? '',
      port: listener.port.port,
      endpoints: [...listener.endpoints],
    }));
  }

  /** Closes every listener and every proxied connection (the node is going away). */
  stop(): void {
    for (const [key, listener] of this.listeners) this.close(key, listener);
    for (const connection of this.connections) {
      connection.client.destroy();
      connection.backend.destroy();
    }
    this.connections.clear();
  }

  private open(key: string, service: V1Service, port: V1ServicePort): void {
    const listener: Listener = { service, port, server: createServer(), endpoints: [], nextIndex: 0 };
    listener.server.on('connection', (client) => this.forward(listener, client));
    listener.server.on('error', (error) => this.options.warn(`service ${service.metadata?.namespace}/${service.metadata?.name} cannot listen on ${service.spec?.clusterIP}:${port.port}`, error));
    listener.server.listen(port.port, service.spec!.clusterIP!);
    this.listeners.set(key, listener);
  }

  private forward(listener: Listener, client: Socket): void {
    if (listener.endpoints.length === 0) {
      // Like kube-proxy with no endpoints: refuse (reset) rather than accept and hang.
      client.resetAndDestroy();
      return;
    }
    const endpoint = listener.endpoints[listener.nextIndex++ % listener.endpoints.length];
    const [host, port] = endpoint.split(':');
    const source = client.remoteAddress;
    const backend = connect({ host, port: Number(port), ...(source && this.options.isClusterAddress(source) ? { localAddress: source } : {}) });
    const connection = { client, backend };
    this.connections.add(connection);
    const cleanUp = (): void => {
      this.connections.delete(connection);
      client.destroy();
      backend.destroy();
    };
    client.on('error', cleanUp);
    backend.on('error', cleanUp);
    client.on('close', cleanUp);
    backend.on('close', cleanUp);
    client.pipe(backend);
    backend.pipe(client);
  }

  // Only the listener: established connections outlive their Service, as conntrack entries do.
  private close(key: string, listener: Listener): void {
    listener.server.close();
    this.listeners.delete(key);
  }
}

function namespaceIndexKey(namespace: string): string {
  return namespace;
}

function labelIndexKey(namespace: string, key: string, value: string): string {
  return `${namespace}\u0000${key}\u0000${value}`;
}

/** Candidates by namespace and by each `namespace, label key, label value`. */
function indexCandidates(candidates: Iterable<EndpointCandidate>): Map<string, EndpointCandidate[]> {
  const index = new Map<string, EndpointCandidate[]>();
  const add = (key: string, candidate: EndpointCandidate): void => {
    const bucket = index.get(key);
    if (bucket) bucket.push(candidate);
    else index.set(key, [candidate]);
  };
  for (const candidate of candidates) {
    add(namespaceIndexKey(candidate.namespace), candidate);
    for (const [key, value] of Object.entries(candidate.labels)) add(labelIndexKey(candidate.namespace, key, value), candidate);
  }
  return index;
}
