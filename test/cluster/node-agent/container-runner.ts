import type { V1Container, V1ContainerState, V1ContainerStatus } from '@kubernetes/client-node';
import type { ProcessRegistry } from '../process/process-registry';
import { SupervisedProcess } from '../process/supervised-process';
import type { LaunchPlan } from './container-launch-plan';
import { PodNotReadyToStartError } from './object-source';
import { ProbeRunner, type ProbeTarget } from './probe-runner';
import { RestartBackoff, type RestartBackoffSettings } from './restart-backoff';

/** How a container run ended, from the pod's point of view. */
export type ContainerOutcome = 'succeeded' | 'failed' | 'stopped';

/** Pod-level services a container needs. */
export interface ContainerContext {
  readonly podKey: string;
  readonly restartPolicy: 'Always' | 'OnFailure' | 'Never';
  readonly backoff: RestartBackoffSettings;
  readonly stateDir: string;
  readonly registry: ProcessRegistry;
  readonly logFile: string;
  /** Resolves env and the launch plan; may throw PodNotReadyToStartError (retried). */
  prepareLaunch(container: V1Container): Promise<LaunchPlan>;
  readonly probeTarget: ProbeTarget;
  /** Grace period for a container killed by a failing liveness/startup probe. */
  readonly terminationGraceMilliseconds: number;
  /** Called on every change that may alter the pod's status. */
  onChange(): void;
}

type JsonContainerState = { waiting: { reason: string; message?: string } } | { running: { startedAt: string } } | { terminated: TerminatedState };
interface TerminatedState {
  exitCode: number;
  signal?: number;
  reason: string;
  message?: string;
  startedAt: string;
  finishedAt: string;
  containerID: string;
}

const RETRY_PREPARATION_MILLISECONDS = 1000;

/**
 * One container of a pod as a host process: starts it, runs its startup/liveness/readiness probes, restarts it
 * per the pod's restartPolicy with crash-loop back-off, and reports a truthful `V1ContainerStatus`
 * (state, lastState, restartCount, ready, started). Init containers run to completion instead.
 */
export class ContainerRunner {
  private state: JsonContainerState;
  private lastState: JsonContainerState | undefined;
  private restartCount = 0;
  private process: SupervisedProcess | undefined;
  private probes: ProbeRunner[] = [];
  private startedByProbe = false;
  private stopping = false;
  private wake: (() => void) | undefined;

  constructor(readonly container: V1Container, private readonly isInit: boolean, private readonly context: ContainerContext, initialWaitingReason = 'ContainerCreating') {
    this.state = { waiting: { reason: initialWaitingReason } };
  }

  /** The live process, if the container is running (chaos and lookups). */
  get runningProcess(): SupervisedProcess | undefined {
    return this.process?.isRunning() ? this.process : undefined;
  }

  /** Whether the container passes its readiness probe (or is running, when it has none). */
  get ready(): boolean {
    if (!this.runningProcess || !this.started) return false;
    const readiness = this.probes.find((probe) => probe.kind === 'readiness');
    return readiness ? readiness.healthy : true;
  }

  get started(): boolean {
    return !!this.runningProcess && (this.startedByProbe || !this.container.startupProbe);
  }

  get isRunning(): boolean {
    return 'running' in this.state;
  }

  /** Whether the container is waiting after having run before (counts as "stopped" for the pod phase). */
  get hasTerminatedBefore(): boolean {
    return this.lastState !== undefined;
  }

  get terminatedExitCode(): number | undefined {
    return 'terminated' in this.state ? this.state.terminated.exitCode : undefined;
  }

  get isWaiting(): boolean {
    return 'waiting' in this.state;
  }

  /** The status the apiserver gets. */
  status(): V1ContainerStatus {
    return {
      name: this.container.name,
      image: this.container.image ?? '',
      imageID: '',
      containerID: this.containerId(),
      ready: this.ready,
      started: this.started,
      restartCount: this.restartCount,
      state: this.state as unknown as V1ContainerState,
      lastState: (this.lastState ?? {}) as unknown as V1ContainerState,
    } as V1ContainerStatus;
  }

  /** Sets the reason a container that never started is waiting (e.g. a volume is not ready yet). */
  explainWaiting(reason: string, message: string): void {
    if ('waiting' in this.state && !this.lastState) this.state = { waiting: { reason, message } };
  }

  /** Runs the container until it stops for good (init containers: until one successful run). */
  async run(): Promise<ContainerOutcome> {
    const backoff = new RestartBackoff(this.context.backoff);
    for (;;) {
      if (this.stopping) return 'stopped';
      let plan: LaunchPlan;
      try {
        plan = await this.context.prepareLaunch(this.container);
      } catch (error) {
        const reason = error instanceof PodNotReadyToStartError ? error.reason : 'CreateContainerError';
        this.setState({ waiting: { reason, message: (error as Error).message } });
        await this.sleep(RETRY_PREPARATION_MILLISECONDS);
        continue;
      }
      if (!plan.runnable) {
        this.setState({ waiting: { reason: plan.reason, message: plan.message } });
        await this.sleep(Number.POSITIVE_INFINITY);
        return 'stopped';
      }
      const startedAt = new Date();
      try {
        this.process = await SupervisedProcess.start({
          name: `${this.context.podKey}/${this.container.name}`,
          command: plan.executable,
          args: plan.args,
          env: plan.env,
          cwd: plan.cwd,
          logFile: this.context.logFile,
          stateDir: this.context.stateDir,
          watchdogGraceSeconds: 2,
          registry: this.context.registry,
        });
      } catch (error) {
        this.setState({ waiting: { reason: 'RunContainerError', message: (error as Error).message } });
        await this.sleep(Math.max(backoff.next(0).milliseconds, RETRY_PREPARATION_MILLISECONDS));
        continue;
      }
      this.startedByProbe = false;
      this.setState({ running: { startedAt: startedAt.toISOString() } });
      this.startProbes();
      const exit = await this.process.exited;
      this.stopProbes();
      const finishedAt = new Date();
      const terminated: TerminatedState = {
        exitCode: exit.exitCode,
        ...(exit.signal ? { signal: exit.exitCode - 128 } : {}),
        reason: exit.exitCode === 0 ? 'Completed' : 'Error',
        startedAt: startedAt.toISOString(),
        finishedAt: finishedAt.toISOString(),
        containerID: this.containerId(),
      };
      if (this.stopping) {
        this.setState({ terminated });
        return 'stopped';
      }
      const failed = exit.exitCode !== 0;
      const restart = this.isInit ? failed && this.context.restartPolicy !== 'Never' : this.context.restartPolicy === 'Always' || (failed && this.context.restartPolicy === 'OnFailure');
      if (!restart) {
        this.setState({ terminated });
        return failed ? 'failed' : 'succeeded';
      }
      const delay = backoff.next(finishedAt.getTime() - startedAt.getTime());
      if (delay.backingOff) {
        this.lastState = { terminated };
        this.setState({
          waiting: { reason: 'CrashLoopBackOff', message: `back-off ${Math.round(delay.milliseconds / 1000)}s restarting failed container=${this.container.name} pod=${this.context.podKey}` },
        });
      } else {
        // Until its next relist notices the exit, the kubelet still reports the run that just ended.
        this.setState({ terminated });
      }
      await this.sleep(delay.milliseconds);
      if (this.stopping) return 'stopped';
      this.lastState = { terminated };
      this.restartCount++;
    }
  }

  /** Stops for good: SIGTERM, SIGKILL after the grace period; no restart follows. */
  async stop(graceMilliseconds: number): Promise<void> {
    this.stopping = true;
    this.stopProbes();
    this.wake?.();
    await this.process?.stop(graceMilliseconds);
  }

  private startProbes(): void {
    const target = this.context.probeTarget;
    const startup = this.container.startupProbe;
    const startOthers = (): void => {
      if (this.container.livenessProbe) {
        this.probes.push(new ProbeRunner('liveness', this.container.livenessProbe, target, (healthy) => {
          if (!healthy) void this.killForFailedProbe();
        }));
      }
      if (this.container.readinessProbe) {
        this.probes.push(new ProbeRunner('readiness', this.container.readinessProbe, target, () => this.context.onChange()));
      }
      this.probes.filter((probe) => probe.kind !== 'startup').forEach((probe) => probe.start());
    };
    if (startup) {
      const startupRunner = new ProbeRunner('startup', startup, target, (healthy) => {
        if (healthy) {
          this.startedByProbe = true;
          startupRunner.stop();
          startOthers();
          this.context.onChange();
        } else {
          void this.killForFailedProbe();
        }
      });
      this.probes.push(startupRunner);
      startupRunner.start();
    } else {
      startOthers();
    }
  }

  private stopProbes(): void {
    this.probes.forEach((probe) => probe.stop());
    this.probes = [];
  }

  // The kubelet kills a container whose liveness (or startup) probe fails; the restart policy takes it from there.
  private async killForFailedProbe(): Promise<void> {
    const running = this.process;
    if (!running?.isRunning()) return;
    this.stopProbes();
    await running.stop(this.context.terminationGraceMilliseconds);
  }

  private setState(state: JsonContainerState): void {
    this.state = state;
    this.context.onChange();
  }

  private containerId(): string {
    return `redkite://${this.context.podKey.replace('/', '_')}_${this.container.name}_${this.restartCount}`;
  }

  private sleep(milliseconds: number): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = Number.isFinite(milliseconds) ? setTimeout(done, milliseconds) : undefined;
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}
