import type { WatchResumeResult, WatchStallView } from '../../cluster/control-plane/apiserver-proxy';
import type { ControllerIdentityView } from '../../cluster/network/controller-identities';
import type { NetworkPeer, PartitionView } from '../../cluster/network/partitions';
import type { PodProcessView, VolumeLossView } from '../../cluster/node-agent/control-api';
import type { ProxiedServicePort } from '../../cluster/node-agent/service-proxy';
import { E2E_ENVIRONMENT, requireE2eVariable } from './cluster-environment';

/** A pod as the node agent sees it (the control API's own view). */
export type PodProcess = PodProcessView;

/** A ClusterIP Service port the agent proxies, with its current endpoints (`podIP:port`). */
export type ProxiedService = ProxiedServicePort;

/** One end of a partition: `{ namespace, pod }` or `{ controller }` (see {@link podPeer}, {@link controllerPeer}). */
export type { NetworkPeer };
/** A partition in force: its id (to heal it), its ends and the addresses whose packets are dropped. */
export type Partition = PartitionView;
/** What losing a pod's volumes did: the volumes emptied and the PIDs killed. */
export type VolumeLoss = VolumeLossView;
/**
 * A controller under test as the harness knows it: its own source address for Redis connections and its own
 * apiserver proxy whose watches can be stalled. Start it with {@link controllerProcessOptions}.
 */
export type ControllerIdentity = ControllerIdentityView;
/** Watch-stall state of a controller's apiserver proxy. */
export type WatchStall = WatchStallView;
/** What resuming watches delivered. */
export type WatchResume = WatchResumeResult;

/** A pod as a partition end. */
export function podPeer(namespace: string, pod: string): NetworkPeer {
  return { namespace, pod };
}

/** A registered controller identity as a partition end. */
export function controllerPeer(controller: string | ControllerIdentity): NetworkPeer {
  return { controller: typeof controller === 'string' ? controller : controller.name };
}

/**
 * `child_process.spawn` options that make a process the controller of this identity: the group id the
 * harness's SNAT rule matches, so its connections to pods leave from `identity.sourceAddress`. The process must
 * also use a kubeconfig whose server is `identity.apiServerUrl` to be subject to watch stalls. Needs root (the
 * harness's network faults do anyway).
 */
export function controllerProcessOptions(identity: ControllerIdentity): { gid: number } {
  if (process.getuid?.() !== 0) throw new Error('starting a process as a controller identity needs root (it runs with the identity\'s group id)');
  return { gid: identity.groupId };
}

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

  /**
   * The pod's persistent volumes are lost: every container mounting one is frozen, the contents of all its
   * persistentVolumeClaim volumes are deleted, and those containers are SIGKILLed, so they restart (after the
   * usual restart delay) on empty volumes; pod, IP and claims stay. Rejects (409) for a pod without such a volume.
   */
  loseVolumes(namespace: string, pod: string): Promise<VolumeLoss> {
    return this.request('POST', `/pods/${encodeURIComponent(namespace)}/${encodeURIComponent(pod)}/lose-volumes`);
  }

  /**
   * Cuts the network between two peers, both ways: every packet between their addresses is dropped, on established
   * connections too (no reset: the sender retransmits, then times out, as on a real network); new connections
   * time out. Anything else still reaches both. Heal with {@link heal}; a partition also heals by itself when
   * one of its pods goes away (deleted, not restarted) or its controller identity is unregistered.
   */
  partition(first: NetworkPeer, second: NetworkPeer): Promise<Partition> {
    return this.request('POST', '/partitions', { between: [first, second] });
  }

  /** Partitions two pods of a namespace from each other. */
  partitionPods(namespace: string, firstPod: string, secondPod: string): Promise<Partition> {
    return this.partition(podPeer(namespace, firstPod), podPeer(namespace, secondPod));
  }

  /** Partitions a pod from a controller identity only: the Service proxy, other pods and tests still reach it. */
  partitionFromController(namespace: string, pod: string, controller: string | ControllerIdentity): Promise<Partition> {
    return this.partition(podPeer(namespace, pod), controllerPeer(controller));
  }

  /** Heals a partition; resolves false if it had healed already (an end went away, or healed twice). */
  async heal(partition: Partition | string): Promise<boolean> {
    const id = typeof partition === 'string' ? partition : partition.id;
    const { healed } = await this.request<{ healed: number }>('DELETE', `/partitions/${encodeURIComponent(id)}`);
    return healed === 1;
  }

  /** Heals every partition of the cluster; resolves how many there were. */
  async healAll(): Promise<number> {
    return (await this.request<{ healed: number }>('DELETE', '/partitions')).healed;
  }

  /** The partitions in force. */
  partitions(): Promise<Partition[]> {
    return this.request('GET', '/partitions');
  }

  /** The cluster's iptables rules as actually installed (`iptables -S` lines), to prove healing left none. */
  firewallRules(): Promise<string[]> {
    return this.request('GET', '/firewall');
  }

  /**
   * Registers a controller under test (a DNS-1123 name, unique in the cluster) and gives it an identity: a source
   * address for its connections to pods and its own apiserver proxy. Unregister it when the test ends.
   */
  registerController(name: string): Promise<ControllerIdentity> {
    return this.request('POST', '/controllers', { name });
  }

  /** The identity and its watch-stall state. */
  controller(name: string): Promise<ControllerIdentity> {
    return this.request('GET', `/controllers/${encodeURIComponent(name)}`);
  }

  /** Removes the identity: its partitions heal, its proxy closes (with every connection through it). */
  async unregisterController(name: string): Promise<void> {
    await this.request('DELETE', `/controllers/${encodeURIComponent(name)}`);
  }

  /**
   * Stalls the controller's watches: its watch connections stay open but no event reaches it (new watches too)
   * while its GET/LIST/POST/PATCH/DELETE requests pass, as with a lagging watch cache or a congested connection.
   */
  stallWatches(controller: string | ControllerIdentity): Promise<WatchStall> {
    return this.request('POST', `/controllers/${encodeURIComponent(nameOf(controller))}/stall-watches`);
  }

  /** Delivers the held events, in order, on the same watch connections, and lets events flow again. */
  resumeWatches(controller: string | ControllerIdentity): Promise<WatchResume> {
    return this.request('POST', `/controllers/${encodeURIComponent(nameOf(controller))}/resume-watches`);
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

  private async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    const answer = (await response.json()) as T & { error?: string };
    if (!response.ok) throw new NodeAgentError(response.status, `${method} ${path}: ${response.status} ${answer.error ?? ''}`);
    return answer;
  }
}

let shared: NodeAgentClient | undefined;

/** The node agent of the test cluster (lazily bound to `REDKITE_E2E_AGENT_URL`). */
export function nodeAgent(): NodeAgentClient {
  shared ??= new NodeAgentClient(requireE2eVariable(E2E_ENVIRONMENT.agentUrl));
  return shared;
}

/**
 * Chaos helpers on the test cluster (see test/cluster/README.md): `chaos.kill(ns, pod)`, `freeze`, `thaw`,
 * `deletePod`, `loseVolumes`, `partitionPods`, `partitionFromController`, `heal`, `stallWatches`, `resumeWatches`.
 */
export const chaos = {
  kill: (namespace: string, pod: string, container?: string): Promise<number> => nodeAgent().kill(namespace, pod, container),
  freeze: (namespace: string, pod: string, container?: string): Promise<number> => nodeAgent().freeze(namespace, pod, container),
  thaw: (namespace: string, pod: string, container?: string): Promise<number> => nodeAgent().thaw(namespace, pod, container),
  deletePod: (namespace: string, pod: string, gracePeriodSeconds?: number): Promise<void> => nodeAgent().deletePod(namespace, pod, gracePeriodSeconds),
  loseVolumes: (namespace: string, pod: string): Promise<VolumeLoss> => nodeAgent().loseVolumes(namespace, pod),
  partitionPods: (namespace: string, firstPod: string, secondPod: string): Promise<Partition> => nodeAgent().partitionPods(namespace, firstPod, secondPod),
  partitionFromController: (namespace: string, pod: string, controller: string | ControllerIdentity): Promise<Partition> =>
    nodeAgent().partitionFromController(namespace, pod, controller),
  heal: (partition: Partition | string): Promise<boolean> => nodeAgent().heal(partition),
  stallWatches: (controller: string | ControllerIdentity): Promise<WatchStall> => nodeAgent().stallWatches(controller),
  resumeWatches: (controller: string | ControllerIdentity): Promise<WatchResume> => nodeAgent().resumeWatches(controller),
};

function nameOf(controller: string | ControllerIdentity): string {
  return typeof controller === 'string' ? controller : controller.name;
}

/** The pod's processes as the node agent sees them (PIDs, restart counts), or undefined. */
export function processOf(namespace: string, pod: string): Promise<PodProcess | undefined> {
  return nodeAgent().processOf(namespace, pod);
}
