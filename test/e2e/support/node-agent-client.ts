import type { PodProcessView } from '../../cluster/node-agent/control-api';
import type { ProxiedServicePort } from '../../cluster/node-agent/service-proxy';
import { E2E_ENVIRONMENT, requireE2eVariable } from './cluster-environment';

/** A pod as the node agent sees it (the control API's own view). */
export type PodProcess = PodProcessView;

/** A ClusterIP Service port the agent proxies, with its current endpoints (`podIP:port`). */
export type ProxiedService = ProxiedServicePort;

/** The agent answered with an error status. */
export class NodeAgentError extends Error {
  override readonly name = 'NodeAgentError';
  constructor(readonly statusCode: number, message: string) {
    super(message);
  }
}

/**
 * Typed client of the node agent's control API: chaos on pod processes, pod processes and IPs, Service
 * proxies, and control-plane faults. Use the shared {@link chaos} instance in tests.
 */
export class NodeAgentClient {
  constructor(private readonly baseUrl: string) {}

  /** SIGKILL the container's process (default: the pod's first container). Resolves the PID that was killed. */
  kill(namespace: string, pod: string, container?: string): Promise<number> {
    return this.signal('kill', namespace, pod, container);
  }

  /** SIGSTOP the container's process: it stops answering (probes time out, the pod turns NotReady). */
  freeze(namespace: string, pod: string, container?: string): Promise<number> {
    return this.signal('freeze', namespace, pod, container);
  }

  /** SIGCONT a frozen container's process. */
  thaw(namespace: string, pod: string, container?: string): Promise<number> {
    return this.signal('thaw', namespace, pod, container);
  }

  /** Deletes the pod through the apiserver (graceful, like `kubectl delete pod`), optionally with a grace period. */
  async deletePod(namespace: string, pod: string, gracePeriodSeconds?: number): Promise<void> {
    const query = gracePeriodSeconds === undefined ? '' : `?gracePeriodSeconds=${gracePeriodSeconds}`;
    await this.request('POST', `/pods/${encodeURIComponent(namespace)}/${encodeURIComponent(pod)}/delete${query}`);
  }

  /** The pod's processes on the node, or undefined when the agent does not run it (yet). */
  async processOf(namespace: string, pod: string): Promise<PodProcess | undefined> {
    try {
      return await this.request<PodProcess>('GET', `/pods/${encodeURIComponent(namespace)}/${encodeURIComponent(pod)}`);
    } catch (error) {
      if (error instanceof NodeAgentError && error.statusCode === 404) return undefined;
      throw error;
    }
  }

  /** The pod's IP (127.x.y.z), or undefined when it has none yet. */
  async podIp(namespace: string, pod: string): Promise<string | undefined> {
    return (await this.processOf(namespace, pod))?.podIp;
  }

  /** Every pod the agent runs. */
  pods(): Promise<PodProcess[]> {
    return this.request<PodProcess[]>('GET', '/pods');
  }

  /** The ClusterIP proxies and their endpoints. */
  services(): Promise<ProxiedService[]> {
    return this.request<ProxiedService[]>('GET', '/services');
  }

  /** Stops and restarts kube-apiserver (same port and certificates): every open watch breaks. Resolves when it is ready again. */
  async restartApiServer(): Promise<{ durationMilliseconds: number }> {
    return this.request('POST', '/control-plane/restart-apiserver');
  }

  /** Compacts etcd to its current revision: a watch resuming from an older resourceVersion gets 410 Gone. */
  async compactEtcd(): Promise<{ revision: number }> {
    return this.request('POST', '/control-plane/compact-etcd');
  }

  private async signal(action: 'kill' | 'freeze' | 'thaw', namespace: string, pod: string, container: string | undefined): Promise<number> {
    const query = container ? `?container=${encodeURIComponent(container)}` : '';
    const { pid } = await this.request<{ pid: number }>('POST', `/pods/${encodeURIComponent(namespace)}/${encodeURIComponent(pod)}/${action}${query}`);
    return pid;
  }

  private async request<T>(method: string, path: string): Promise<T> {
    const response = await fetch(`${this.baseUrl}${path}`, { method });
    const body = (await response.json()) as T & { error?: string };
    if (!response.ok) throw new NodeAgentError(response.status, `${method} ${path}: ${response.status} ${body.error ?? ''}`);
    return body;
  }
}

let shared: NodeAgentClient | undefined;

/** The node agent of the test cluster (lazily bound to `REDKITE_E2E_AGENT_URL`). */
export function nodeAgent(): NodeAgentClient {
  shared ??= new NodeAgentClient(requireE2eVariable(E2E_ENVIRONMENT.agentUrl));
  return shared;
}

/** Chaos helpers on the test cluster: `chaos.kill(ns, pod)`, `chaos.freeze(...)`, `chaos.thaw(...)`, `chaos.deletePod(...)`. */
export const chaos = {
  kill: (namespace: string, pod: string, container?: string): Promise<number> => nodeAgent().kill(namespace, pod, container),
  freeze: (namespace: string, pod: string, container?: string): Promise<number> => nodeAgent().freeze(namespace, pod, container),
  thaw: (namespace: string, pod: string, container?: string): Promise<number> => nodeAgent().thaw(namespace, pod, container),
  deletePod: (namespace: string, pod: string, gracePeriodSeconds?: number): Promise<void> => nodeAgent().deletePod(namespace, pod, gracePeriodSeconds),
};

/** The pod's processes as the node agent sees them (PIDs, restart counts), or undefined. */
export function processOf(namespace: string, pod: string): Promise<PodProcess | undefined> {
  return nodeAgent().processOf(namespace, pod);
}
