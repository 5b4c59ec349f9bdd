import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { V1Container, V1Pod, V1PodCondition } from '@kubernetes/client-node';
import { KubeApiError, type KubeRestClient } from '../kube/kube-rest-client';
import type { ProcessRegistry } from '../process/process-registry';
import { SupervisedProcess } from '../process/supervised-process';
import { hostEnvironment, planContainerLaunch, resolveExecutable, type LaunchPlan } from './container-launch-plan';
import { resolveContainerEnv } from './container-env';
import { ContainerRunner, type ContainerContext } from './container-runner';
import { PodNotReadyToStartError, type ObjectSource } from './object-source';
import { PathMapping } from './path-mapping';
import type { PodIpAllocator } from './pod-ip-allocator';
import type { ConcurrencyLimit } from '../kube/concurrency-limit';
import { buildPodStatus } from './pod-status';
import { PodStatusReporter } from './pod-status-reporter';
import { containerMounts, materializeVolumes, type ClaimFolders } from './pod-volumes';
import type { ProbeTarget } from './probe-runner';
import type { RestartBackoffSettings } from './restart-backoff';

/** Agent-wide services every pod worker uses. */
export interface PodWorkerServices {
  readonly client: KubeRestClient;
  readonly objects: ObjectSource;
  readonly claims: ClaimFolders;
  readonly ipAllocator: PodIpAllocator;
  readonly registry: ProcessRegistry;
  readonly stateDir: string;
  /** Parent of the per-pod folders. */
  readonly podsFolder: string;
  readonly podLogsFolder: string;
  readonly hostPathSandbox: string;
  readonly shimsFolder: string;
  readonly hostIp: string;
  readonly backoff: RestartBackoffSettings;
  readonly warn: (message: string, error?: unknown) => void;
  /** Bounds the status writes of all pods together. */
  readonly statusWriteLimit: ConcurrencyLimit;
  /** Readiness, IP or phase changed (the Service proxy re-evaluates its endpoints). */
  onPodChanged(): void;
  /** The worker is finished (pod deleted, processes gone, folder removed). */
  onFinished(uid: string): void;
}

const RETRY_VOLUMES_MILLISECONDS = 1000;
const DEFAULT_GRACE_SECONDS = 30;

/**
 * The life of one pod incarnation (one UID) on this node: pod IP, volumes, init containers, containers,
 * status reports, and graceful termination ending with the final delete (grace 0), like the kubelet.
 */
export class PodWorker {
  private pod: V1Pod;
  private podIpAddress: string | undefined;
  private readonly startTime = new Date();
  private volumesReady = false;
  private volumeFolders = new Map<string, string>();
  private initialized = false;
  private initFailed = false;
  private readonly initContainers: ContainerRunner[];
  private readonly containers: ContainerRunner[];
  private terminating: Promise<void> | undefined;
  private objectGone = false;
  private readonly statusReporter: PodStatusReporter;
  private lastStatusJson = '';
  private lastConditions: V1PodCondition[] | undefined;
  private wakePreparation: (() => void) | undefined;
  private readonly podDir: string;

  constructor(pod: V1Pod, private readonly services: PodWorkerServices) {
    this.pod = pod;
    this.podDir = join(services.podsFolder, this.uid);
    this.statusReporter = new PodStatusReporter({ podKey: this.key, write: () => this.writeStatus(), warn: services.warn, writeLimit: services.statusWriteLimit });
    const hasInit = (pod.spec?.initContainers ?? []).length > 0;
    this.initContainers = (pod.spec?.initContainers ?? []).map((container) => new ContainerRunner(container, true, this.containerContext(container)));
    this.containers = (pod.spec?.containers ?? []).map(
      (container) => new ContainerRunner(container, false, this.containerContext(container), hasInit ? 'PodInitializing' : 'ContainerCreating'),
    );
  }

  get uid(): string { return this.pod.metadata!.uid!; }
  get namespace(): string { return this.pod.metadata!.namespace!; }
  get name(): string { return this.pod.metadata!.name!; }
  get key(): string { return `${this.namespace}/${this.name}`; }
  /** The latest pod object seen. */
  get object(): V1Pod { return this.pod; }
  get podIp(): string | undefined { return this.podIpAddress; }
  get isTerminating(): boolean { return this.terminating !== undefined; }

  /** Ready as the kubelet would report it (all containers ready), and not being deleted. */
  get ready(): boolean {
    return !this.terminating && this.containers.length > 0 && this.containers.every((container) => container.ready);
  }

  /** Host folders of the pod's persistentVolumeClaim volumes by volume name (none before its volumes are set up). */
  persistentVolumeFolders(): Map<string, string> {
    const claims = new Set((this.pod.spec?.volumes ?? []).filter((volume) => volume.persistentVolumeClaim).map((volume) => volume.name));
    return new Map([...this.volumeFolders].filter(([name]) => claims.has(name)));
  }

  /** The runners of the pod's containers (regular containers first, then init containers). */
  runners(): ContainerRunner[] {
    return [...this.containers, ...this.initContainers];
  }

  /** Starts the pod in the background. */
  start(): void {
    void this.run().catch((error: unknown) => this.services.warn(`pod ${this.key} failed`, error));
  }

  /** A newer version of the pod object arrived. */
  update(pod: V1Pod): void {
    this.pod = pod;
    if (pod.metadata?.deletionTimestamp && !this.terminating) {
      const graceSeconds = pod.metadata.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? DEFAULT_GRACE_SECONDS;
      void this.terminate(graceSeconds * 1000);
    }
    this.services.onPodChanged();
  }

  /** The pod object is gone from the apiserver (force deletion): stop at once, nothing left to report. */
  objectDeleted(): void {
    this.objectGone = true;
    this.statusReporter.stop();
    void this.terminate(0);
  }

  /**
   * Stops every container (preStop exec hooks, SIGTERM, SIGKILL after the grace period), deletes the pod object
   * with grace 0 (the kubelet's final step), then frees the IP and the pod folder.
   */
  terminate(graceMilliseconds: number): Promise<void> {
    if (!this.terminating) {
      this.terminating = this.doTerminate(graceMilliseconds);
      this.services.onPodChanged();
    }
    return this.terminating;
  }

  private async doTerminate(graceMilliseconds: number): Promise<void> {
    this.wakePreparation?.();
    const deadline = Date.now() + graceMilliseconds;
    await Promise.all(this.containers.map((runner) => this.runPreStopHook(runner, deadline)));
    await Promise.all(this.runners().map((runner) => runner.stop(Math.max(0, deadline - Date.now()))));
    if (!this.objectGone) {
      await this.statusReporter.flush();
      this.statusReporter.stop();
      await this.services.client
        .delete(`/api/v1/namespaces/${this.namespace}/pods/${this.name}`, {
          apiVersion: 'v1',
          kind: 'DeleteOptions',
          gracePeriodSeconds: 0,
          preconditions: { uid: this.uid },
        })
        .catch((error: unknown) => {
          if (!(error instanceof KubeApiError && (error.statusCode === 404 || error.statusCode === 409))) this.services.warn(`final delete of ${this.key} failed`, error);
        });
    }
    this.statusReporter.stop();
    if (this.podIpAddress) this.services.ipAllocator.release(this.podIpAddress);
    rmSync(this.podDir, { recursive: true, force: true });
    this.services.onFinished(this.uid);
  }

  private async run(): Promise<void> {
    this.podIpAddress = this.services.ipAllocator.allocate();
    mkdirSync(this.podDir, { recursive: true });
    mkdirSync(this.podLogsDir, { recursive: true });
    this.scheduleStatus();
    await this.prepareVolumes();
    if (this.terminating) return;
    for (const runner of this.initContainers) {
      const outcome = await runner.run();
      if (outcome === 'stopped') return;
      if (outcome === 'failed') {
        this.initFailed = true;
        this.scheduleStatus();
        return;
      }
    }
    this.initialized = true;
    this.scheduleStatus();
    await Promise.all(this.containers.map((runner) => runner.run()));
    this.scheduleStatus();
  }

  private async prepareVolumes(): Promise<void> {
    while (!this.terminating) {
      try {
        this.volumeFolders = await materializeVolumes({
          pod: this.pod,
          podDir: this.podDir,
          hostPathSandbox: this.services.hostPathSandbox,
          objects: this.services.objects,
          claims: this.services.claims,
          podIp: this.podIpAddress!,
          hostIp: this.services.hostIp,
        });
        this.volumesReady = true;
        this.scheduleStatus();
        return;
      } catch (error) {
        if (!(error instanceof PodNotReadyToStartError)) this.services.warn(`volumes of ${this.key}`, error);
        const message = (error as Error).message;
        for (const runner of this.runners()) runner.explainWaiting('ContainerCreating', message);
        this.scheduleStatus();
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, RETRY_VOLUMES_MILLISECONDS);
          this.wakePreparation = () => { clearTimeout(timer); resolve(); };
        });
      }
    }
  }

  private get podLogsDir(): string {
    return join(this.services.podLogsFolder, `${this.namespace}_${this.name}_${this.uid.slice(0, 8)}`);
  }

  private containerContext(container: V1Container): ContainerContext {
    const graceSeconds = this.pod.spec?.terminationGracePeriodSeconds ?? DEFAULT_GRACE_SECONDS;
    const restartPolicy = (this.pod.spec?.restartPolicy ?? 'Always') as ContainerContext['restartPolicy'];
    return {
      podKey: this.key,
      restartPolicy,
      backoff: this.services.backoff,
      stateDir: this.services.stateDir,
      registry: this.services.registry,
      logFile: join(this.podLogsDir, `${container.name}.log`),
      prepareLaunch: (target) => this.prepareLaunch(target),
      probeTarget: this.probeTarget(container),
      terminationGraceMilliseconds: graceSeconds * 1000,
      onChange: () => {
        this.scheduleStatus();
        this.services.onPodChanged();
      },
    };
  }

  private async launchEnvironment(container: V1Container): Promise<{ env: Record<string, string>; mapping: PathMapping; scratchFolder: string }> {
    const env = await resolveContainerEnv(this.pod, container, this.services.objects, this.podIpAddress!, this.services.hostIp);
    const scratchFolder = join(this.podDir, 'containers', container.name);
    mkdirSync(scratchFolder, { recursive: true });
    const mapping = new PathMapping(containerMounts(container, this.volumeFolders), join(scratchFolder, 'rootfs'));
    return { env, mapping, scratchFolder };
  }

  private async prepareLaunch(container: V1Container): Promise<LaunchPlan> {
    if (!this.volumesReady) throw new PodNotReadyToStartError('ContainerCreating', 'volumes are not ready yet');
    const { env, mapping, scratchFolder } = await this.launchEnvironment(container);
    return planContainerLaunch({
      container,
      env,
      mapping,
      shimsFolder: this.services.shimsFolder,
      podIp: this.podIpAddress!,
      hostname: this.pod.spec?.hostname ?? this.name,
      scratchFolder,
    });
  }

  /** Exec probes run as pod processes: same env, PATH shims, path rewriting and working directory. */
  private probeTarget(container: V1Container): ProbeTarget {
    return {
      podIp: () => this.podIpAddress ?? '',
      exec: async (command, timeoutMilliseconds) => {
        const { env, mapping, scratchFolder } = await this.launchEnvironment(container);
        const hostEnv = hostEnvironment({ env, mapping, shimsFolder: this.services.shimsFolder, podIp: this.podIpAddress!, hostname: this.name, scratchFolder });
        const argv = command.map((argument) => mapping.rewriteText(argument.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (match, name: string) => env[name] ?? match)));
        const executable = resolveExecutable(argv[0] ?? '', hostEnv.PATH);
        if (!executable) return false;
        const probe = await SupervisedProcess.start({
          name: `${this.key}/${container.name}/probe`,
          command: executable,
          args: argv.slice(1),
          env: hostEnv,
          cwd: mapping.toHostDirectory(container.workingDir ?? '/data'),
          logFile: '/dev/null',
          stateDir: this.services.stateDir,
          watchdogGraceSeconds: 1,
        });
        const timer = setTimeout(() => void probe.stop(0), timeoutMilliseconds);
        const exit = await probe.exited;
        clearTimeout(timer);
        return exit.exitCode === 0;
      },
      resolvePort: (port) => {
        if (typeof port === 'number') return port;
        if (/^\d+$/.test(port)) return Number(port);
        return container.ports?.find((candidate) => candidate.name === port)?.containerPort;
      },
    };
  }

  private async runPreStopHook(runner: ContainerRunner, deadline: number): Promise<void> {
    const hook = runner.container.lifecycle?.preStop?.exec?.command;
    if (!hook?.length || !runner.runningProcess) return;
    await this.probeTarget(runner.container).exec(hook, Math.max(0, deadline - Date.now())).catch(() => false);
  }

  private scheduleStatus(): void {
    if (!this.objectGone) this.statusReporter.request();
  }

  private async writeStatus(): Promise<void> {
    const status = buildPodStatus(
      {
        pod: this.pod,
        podIp: this.podIpAddress,
        hostIp: this.services.hostIp,
        startTime: this.startTime,
        volumesReady: this.volumesReady,
        initContainers: this.initContainers,
        containers: this.containers,
        initialized: this.initialized,
        initFailed: this.initFailed,
      },
      this.lastConditions,
    );
    const json = JSON.stringify(status);
    if (json === this.lastStatusJson) return;
    // The uid makes the patch fail (409/422) instead of writing into a newer pod with the same name.
    await this.services.client.patch(`/api/v1/namespaces/${this.namespace}/pods/${this.name}/status`, { metadata: { uid: this.uid }, status });
    this.lastStatusJson = json;
    this.lastConditions = status.conditions as V1PodCondition[];
  }
}
