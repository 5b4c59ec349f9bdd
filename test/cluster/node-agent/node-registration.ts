import { cpus, freemem, hostname, release, totalmem } from 'node:os';
import { KubeApiError, type KubeRestClient } from '../kube/kube-rest-client';

/** The Kubernetes version the agent reports as its kubelet version (that of the control plane it was built with). */
export const KUBELET_VERSION = 'v1.34.4';
const HEARTBEAT_MILLISECONDS = 10_000;
const HEARTBEAT_RETRY_MILLISECONDS = 2000;
const LEASE_SECONDS = 40;

/**
 * Registers this machine as a Ready Node and keeps it so: renews its Lease in `kube-node-lease` and refreshes
 * the Ready condition's heartbeat every 10 s, as the kubelet does. A failed heartbeat (apiserver restarting) is
 * logged and retried after 2 s.
 */
export class NodeRegistration {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly client: KubeRestClient,
    readonly nodeName: string,
    private readonly hostIp: string,
    private readonly warn: (message: string, error?: unknown) => void,
  ) {}

  /** Creates (or adopts) the Node, marks it Ready and starts the heartbeat. */
  async register(): Promise<void> {
    const node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: this.nodeName,
        labels: {
          'kubernetes.io/hostname': this.nodeName,
          'kubernetes.io/os': 'linux',
          'kubernetes.io/arch': process.arch === 'x64' ? 'amd64' : process.arch,
          'node.kubernetes.io/instance-type': 'redkite-local',
        },
      },
      spec: {},
    };
    try {
      await this.client.post('/api/v1/nodes', node);
    } catch (error) {
      if (!(error instanceof KubeApiError && error.statusCode === 409)) throw error;
    }
    await this.heartbeat();
    this.scheduleHeartbeat(HEARTBEAT_MILLISECONDS);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  // One heartbeat at a time (a slow one under load must not pile up behind the next); a failed one is retried
  // sooner, well within the 40 s lease.
  private scheduleHeartbeat(delayMilliseconds: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.heartbeat().then(
        () => this.scheduleHeartbeat(HEARTBEAT_MILLISECONDS),
        (error: unknown) => {
          this.warn(`node heartbeat failed; retrying in ${HEARTBEAT_RETRY_MILLISECONDS} ms`, error);
          this.scheduleHeartbeat(HEARTBEAT_RETRY_MILLISECONDS);
        },
      );
    }, delayMilliseconds);
  }

  private async heartbeat(): Promise<void> {
    await this.renewLease();
    await this.client.patch(`/api/v1/nodes/${this.nodeName}/status`, { status: this.nodeStatus() }, 'application/strategic-merge-patch+json');
  }

  private async renewLease(): Promise<void> {
    const path = `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${this.nodeName}`;
    const renewTime = new Date().toISOString().replace('Z', '000Z');
    try {
      await this.client.patch(path, { spec: { renewTime } });
    } catch (error) {
      if (!(error instanceof KubeApiError && error.statusCode === 404)) throw error;
      await this.client.post('/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: this.nodeName, namespace: 'kube-node-lease' },
        spec: { holderIdentity: this.nodeName, leaseDurationSeconds: LEASE_SECONDS, renewTime },
      });
    }
  }

  private nodeStatus(): Record<string, unknown> {
    const now = new Date().toISOString();
    const pressure = (type: string, reason: string) => ({ type, status: 'False', reason, message: `no ${type}`, lastHeartbeatTime: now, lastTransitionTime: now });
    const capacity = {
      cpu: String(cpus().length),
      memory: `${Math.floor(totalmem() / 1024)}Ki`,
      pods: '110',
      'ephemeral-storage': '100Gi',
    };
    return {
      conditions: [
        pressure('MemoryPressure', 'KubeletHasSufficientMemory'),
        pressure('DiskPressure', 'KubeletHasNoDiskPressure'),
        pressure('PIDPressure', 'KubeletHasSufficientPID'),
        { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'redkite node agent is posting ready status', lastHeartbeatTime: now, lastTransitionTime: now },
      ],
      addresses: [
        { type: 'InternalIP', address: this.hostIp },
        { type: 'Hostname', address: this.nodeName },
      ],
      capacity,
      allocatable: { ...capacity, memory: `${Math.floor(Math.min(freemem(), totalmem()) / 1024)}Ki` },
      daemonEndpoints: { kubeletEndpoint: { Port: 0 } },
      nodeInfo: {
        machineID: 'redkite-local',
        systemUUID: 'redkite-local',
        bootID: 'redkite-local',
        kernelVersion: release(),
        osImage: `host ${hostname()}`,
        containerRuntimeVersion: 'redkite-node-agent://0.1.0',
        kubeletVersion: KUBELET_VERSION,
        kubeProxyVersion: KUBELET_VERSION,
        operatingSystem: 'linux',
        architecture: process.arch === 'x64' ? 'amd64' : process.arch,
      },
    };
  }
}
