import { join, resolve } from 'node:path';

/** The default state directory of `cluster:up` (git-ignored). */
export const DEFAULT_STATE_DIR = resolve(__dirname, '..', '..', '.cluster');

/**
 * Where everything of one cluster lives. One object so that no path is spelled twice; every path is absolute
 * because processes get them on their command lines.
 */
export class StateDirLayout {
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  get logs(): string { return join(this.root, 'logs'); }
  get pki(): string { return join(this.root, 'pki'); }
  get kubeconfig(): string { return join(this.root, 'kubeconfig'); }
  /** Written by the daemon once the cluster is ready (see {@link ClusterEndpoints}). */
  get readyFile(): string { return join(this.root, 'cluster.json'); }
  /** The daemon's PID and start time, for `down`. */
  get daemonFile(): string { return join(this.root, 'daemon.json'); }
  get processRegistry(): string { return join(this.root, 'processes.json'); }
  get pods(): string { return join(this.root, 'pods'); }
  get persistentVolumes(): string { return join(this.root, 'persistent-volumes'); }
  get shims(): string { return join(this.root, 'shims'); }
  logFile(name: string): string { return join(this.logs, `${name}.log`); }
}

/** What the daemon publishes in the ready file once everything answers. */
export interface ClusterEndpoints {
  readonly kubeconfig: string;
  readonly apiServerUrl: string;
  /** Base URL of the node agent's control API (chaos, pod processes, control-plane faults). */
  readonly agentUrl: string;
  readonly nodeName: string;
  /** The 127.x.0.0/16 block of this cluster: pod IPs and ClusterIPs come from it. */
  readonly loopbackBlock: string;
  readonly daemonPid: number;
  readonly startedAt: string;
}
