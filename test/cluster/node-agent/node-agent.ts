import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { V1PersistentVolumeClaim, V1Pod, V1Service } from '@kubernetes/client-node';
import { ConcurrencyLimit } from '../kube/concurrency-limit';
import type { KubeRestClient } from '../kube/kube-rest-client';
import { WatchedCollection } from '../kube/watched-collection';
import type { ProcessRegistry } from '../process/process-registry';
import type { SupervisedProcess } from '../process/supervised-process';
import type { StateDirLayout } from '../state-dir';
import { ControlApiError, NotFoundError, type ChaosAction, type PodProcessView, type VolumeLossView } from './control-api';
import { NodeRegistration } from './node-registration';
import { ObjectSource } from './object-source';
import { PersistentVolumeProvisioner } from './persistent-volume-provisioner';
import { PodBinder } from './pod-binder';
import { PodIpAllocator } from './pod-ip-allocator';
import { PodWorker, type PodWorkerServices } from './pod-worker';
import { writeRedisShims, type RedisPrograms } from './redis-shims';
import type { RestartBackoffSettings } from './restart-backoff';
import { ServiceProxy, type EndpointCandidate, type ProxiedServicePort } from './service-proxy';
import { ThrottledTask } from './throttled-task';

/** What the node agent needs. */
export interface NodeAgentOptions {
  readonly client: KubeRestClient;
  readonly layout: StateDirLayout;
  readonly registry: ProcessRegistry;
  readonly nodeName: string;
  /** `127.B.`: pod IPs are allocated below it. */
  readonly podIpPrefix: string;
  /** Lowest third octet of pod IPs, above the Service range. @default 1 */
  readonly firstPodIpThirdOctet?: number;
  readonly redisPrograms: RedisPrograms;
  readonly backoff: RestartBackoffSettings;
  readonly warn: (message: string, error?: unknown) => void;
  /** A pod incarnation is gone for good (processes stopped, IP freed): faults bound to it must go too. */
  readonly onPodFinished?: (uid: string) => void;
}

const HOST_IP = '127.0.0.1';
const RESYNC_MILLISECONDS = 5000;
const SHUTDOWN_GRACE_MILLISECONDS = 3000;
/** Status writes of all pods in flight at once (bindings have their own 8, heartbeats and watches the rest of the client's 32 connections). */
const MAX_CONCURRENT_STATUS_WRITES = 16;
/** Endpoints are recomputed at most this often, however many pods change. */
const ENDPOINT_REFRESH_INTERVAL_MILLISECONDS = 50;
/** Service listeners are reconciled at most this often, however many Services change. */
const SERVICE_SYNC_INTERVAL_MILLISECONDS = 100;

/**
 * A small kubelet (plus scheduler and kube-proxy stand-ins) for one node: registers the Node, binds pending pods
 * to it, runs their containers as host processes (Redis images only), provisions PersistentVolumes for their
 * claims and proxies ClusterIP Services. Level-based: every pod is re-examined on each watch event and every 5 s.
 * Work whose cost grows with the cluster (endpoints, Service listeners) is throttled rather than redone per event,
 * so a thousand pods arriving at once cannot starve the event loop that binds them and reports their status.
 */
export class NodeAgent {
  private readonly workers = new Map<string, PodWorker>();
  private readonly finishedUids = new Set<string>();
  private readonly pods: WatchedCollection<V1Pod>;
  private readonly services: WatchedCollection<V1Service>;
  private readonly claims: WatchedCollection<V1PersistentVolumeClaim>;
  private readonly registration: NodeRegistration;
  private readonly binder: PodBinder;
  private readonly provisioner: PersistentVolumeProvisioner;
  private readonly proxy: ServiceProxy;
  private readonly workerServices: PodWorkerServices;
  private readonly endpointRefresh: ThrottledTask;
  private readonly serviceSync: ThrottledTask;
  private resyncTimer: NodeJS.Timeout | undefined;
  private stopping = false;

  constructor(private readonly options: NodeAgentOptions) {
    const { client, layout, warn, nodeName } = options;
    for (const folder of [layout.pods, layout.persistentVolumes, join(layout.logs, 'pods')]) mkdirSync(folder, { recursive: true });
    writeRedisShims(layout.shims, options.redisPrograms);
    this.registration = new NodeRegistration(client, nodeName, HOST_IP, warn);
    this.binder = new PodBinder({
      client,
      nodeName,
      warn,
      stillWantsBinding: (key, uid) => {
        const latest = this.pods.get(key);
        return latest?.metadata?.uid === uid && this.binder.wantsBinding(latest);
      },
    });
    this.provisioner = new PersistentVolumeProvisioner(client, layout.persistentVolumes);
    this.proxy = new ServiceProxy({
      candidates: () => this.endpointCandidates(),
      isClusterAddress: (address) => address.startsWith(options.podIpPrefix),
      warn,
    });
    this.endpointRefresh = new ThrottledTask(() => this.proxy.refreshEndpoints(), ENDPOINT_REFRESH_INTERVAL_MILLISECONDS, warn, 'refreshing Service endpoints');
    this.serviceSync = new ThrottledTask(() => this.proxy.syncServices(this.services.values()), SERVICE_SYNC_INTERVAL_MILLISECONDS, warn, 'syncing Service listeners');
    this.workerServices = {
      client,
      objects: new ObjectSource(client),
      claims: this.provisioner,
      ipAllocator: new PodIpAllocator(options.podIpPrefix, options.firstPodIpThirdOctet),
      registry: options.registry,
      stateDir: layout.root,
      podsFolder: layout.pods,
      podLogsFolder: join(layout.logs, 'pods'),
      hostPathSandbox: join(layout.root, 'host-paths'),
      shimsFolder: layout.shims,
      hostIp: HOST_IP,
      backoff: options.backoff,
      statusWriteLimit: new ConcurrencyLimit(MAX_CONCURRENT_STATUS_WRITES),
      // Pods stopped during shutdown cannot report to an apiserver that is stopping too: not worth a warning.
      warn: (message, error) => {
        if (!this.stopping) warn(message, error);
      },
      onPodChanged: () => this.endpointRefresh.request(),
      onFinished: (uid) => {
        this.workers.delete(uid);
        this.finishedUids.add(uid);
        this.endpointRefresh.request();
        options.onPodFinished?.(uid);
      },
    };
    this.pods = new WatchedCollection<V1Pod>(client, '/api/v1/pods', (pod, change) => this.onPod(pod, change), warn);
    this.services = new WatchedCollection<V1Service>(client, '/api/v1/services', () => this.serviceSync.request(), warn);
    this.claims = new WatchedCollection<V1PersistentVolumeClaim>(client, '/api/v1/persistentvolumeclaims', (claim, change) => {
      if (change === 'deleted') void this.provisioner.claimDeleted(claim).catch((error: unknown) => warn('releasing a persistent volume failed', error));
    }, warn);
  }

  /** Registers the node and starts watching; resolves once the node is Ready and the first lists are done. */
  async start(): Promise<void> {
    await this.registration.register();
    this.pods.start();
    this.services.start();
    this.claims.start();
    await Promise.all([this.pods.waitForSync(), this.services.waitForSync(), this.claims.waitForSync()]);
    // Listeners exist before the cluster is declared ready, as they did when each event synced them.
    this.serviceSync.runNow();
    this.resyncTimer = setInterval(() => this.pods.values().forEach((pod) => this.onPod(pod, 'upserted')), RESYNC_MILLISECONDS);
  }

  /** Stops watching and kills every pod process (quickly: the cluster is going away). */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.resyncTimer);
    this.registration.stop();
    this.binder.stop();
    this.endpointRefresh.stop();
    this.serviceSync.stop();
    this.pods.stop();
    this.services.stop();
    this.claims.stop();
    this.proxy.stop();
    await Promise.all([...this.workers.values()].flatMap((worker) => worker.runners().map((runner) => runner.stop(SHUTDOWN_GRACE_MILLISECONDS))));
  }

  /** Pods with their processes, for the control API. */
  listPods(): PodProcessView[] {
    return [...this.workers.values()].map((worker) => ({
      namespace: worker.namespace,
      name: worker.name,
      uid: worker.uid,
      podIp: worker.podIp,
      ready: worker.ready,
      terminating: worker.isTerminating,
      containers: worker.runners().map((runner) => {
        const status = runner.status();
        return { name: runner.container.name, pid: runner.runningProcess?.pid, restartCount: status.restartCount, ready: status.ready };
      }),
    }));
  }

  /** SIGKILL / SIGSTOP / SIGCONT the container's process; returns its PID. */
  chaos(namespace: string, name: string, action: ChaosAction, containerName: string | undefined): number {
    const worker = this.runningWorker(namespace, name);
    const runner = containerName ? worker.runners().find((candidate) => candidate.container.name === containerName) : worker.runners()[0];
    const process = runner?.runningProcess;
    if (!process) throw new NotFoundError(`container ${containerName ?? '(first)'} of ${namespace}/${name} has no running process`);
    process.signal(action === 'kill' ? 'SIGKILL' : action === 'freeze' ? 'SIGSTOP' : 'SIGCONT');
    return process.pid;
  }

  /**
   * The pod's persistent volumes are lost, as when a PV's disk is replaced by a blank one: every container that
   * mounts one is frozen (so nothing writes while the volume is emptied), the contents of every
   * persistentVolumeClaim volume are deleted, and the containers are SIGKILLed. They restart after the usual
   * restart delay on empty volumes; the pod, its IP and its claims stay the same.
   */
  async loseVolumes(namespace: string, name: string): Promise<VolumeLossView> {
    const worker = this.runningWorker(namespace, name);
    const volumes = worker.persistentVolumeFolders();
    if (volumes.size === 0) throw new ControlApiError(409, `pod ${namespace}/${name} has no persistentVolumeClaim volume (or its volumes are not set up yet)`);
    const mounting = (): SupervisedProcess[] => worker.runners()
      .filter((runner) => (runner.container.volumeMounts ?? []).some((mount) => volumes.has(mount.name)))
      .flatMap((runner) => (runner.runningProcess ? [runner.runningProcess] : []));
    const frozen = mounting();
    for (const process of frozen) process.signal('SIGSTOP');
    const stillRunning = (await Promise.all(frozen.map(async (process) => ((await waitUntilStopped(process.pid)) ? [] : [process.pid])))).flat();
    if (stillRunning.length > 0) this.options.warn(`losing the volumes of ${namespace}/${name}: process(es) ${stillRunning.join(', ')} did not stop in time; wiping anyway`);
    for (const folder of volumes.values()) {
      for (const entry of readdirSync(folder)) rmSync(join(folder, entry), { recursive: true, force: true });
    }
    // Whatever mounts the volumes now dies, including a container that started while the others were frozen.
    const killed = mounting();
    for (const process of killed) process.signal('SIGKILL');
    return { volumes: [...volumes.keys()], killedPids: killed.map((process) => process.pid) };
  }

  /** The pod's UID and address, for partitions; throws NotFoundError when it has none here. */
  podAddress(namespace: string, name: string): { uid: string; podIp: string } {
    const worker = this.runningWorker(namespace, name);
    if (!worker.podIp) throw new NotFoundError(`pod ${namespace}/${name} has no IP yet`);
    return { uid: worker.uid, podIp: worker.podIp };
  }

  /** Deletes a pod through the apiserver, optionally with a grace period. */
  async deletePod(namespace: string, name: string, gracePeriodSeconds: number | undefined): Promise<void> {
    await this.options.client.delete(`/api/v1/namespaces/${namespace}/pods/${name}`, {
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      ...(gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds }),
    });
  }

  /** The Service proxies and their endpoints. */
  listServices(): ProxiedServicePort[] {
    return this.proxy.describe();
  }

  private runningWorker(namespace: string, name: string): PodWorker {
    const worker = [...this.workers.values()].find((candidate) => candidate.namespace === namespace && candidate.name === name && !candidate.isTerminating);
    if (!worker) throw new NotFoundError(`no running pod ${namespace}/${name} on this node`);
    return worker;
  }

  private onPod(pod: V1Pod, change: 'upserted' | 'deleted'): void {
    if (this.stopping) return;
    const uid = pod.metadata?.uid ?? '';
    const worker = this.workers.get(uid);
    if (change === 'deleted') {
      worker?.objectDeleted();
      return;
    }
    if (this.binder.wantsBinding(pod)) {
      this.binder.bind(pod);
      return;
    }
    if (pod.spec?.nodeName !== this.options.nodeName) return;
    if (worker) {
      worker.update(pod);
      return;
    }
    if (this.finishedUids.has(uid)) return;
    // A pod that finished before the agent saw it (or that the agent already ran to completion) stays as it is.
    if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return;
    const created = new PodWorker(pod, this.workerServices);
    this.workers.set(uid, created);
    if (pod.metadata?.deletionTimestamp) {
      void created.terminate(0);
      return;
    }
    created.start();
  }

  private *endpointCandidates(): Iterable<EndpointCandidate> {
    for (const worker of this.workers.values()) {
      const pod = worker.object;
      yield {
        namespace: worker.namespace,
        uid: worker.uid,
        labels: pod.metadata?.labels ?? {},
        podIp: worker.podIp,
        ready: worker.ready,
        resolvePort: (port) => {
          if (typeof port === 'number') return port;
          if (/^\d+$/.test(port)) return Number(port);
          return pod.spec?.containers.flatMap((container) => container.ports ?? []).find((candidate) => candidate.name === port)?.containerPort;
        },
      };
    }
  }
}

const STOP_WAIT_MILLISECONDS = 2000;

// SIGSTOP takes effect when the kernel next schedules the process, not when kill(2) returns: wait for state T.
// False if it is still running at the deadline (stuck in uninterruptible I/O, say).
async function waitUntilStopped(pid: number): Promise<boolean> {
  const deadline = Date.now() + STOP_WAIT_MILLISECONDS;
  while (Date.now() < deadline) {
    let state: string;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    } catch {
      return true; // gone already: it cannot write either
    }
    if (state === 'T' || state === 'Z') return true;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return false;
}
