import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { KubernetesClient } from './client/kubernetes-client';
import { KubernetesRestClient } from './client/rest-client';
import type { Clock } from './clock';
import type { Controller } from './controller';
import { ControllerBuilder, ControllerHost, WatchedKind } from './controller-builder';
import { LeadershipLostError } from './errors';
import { ApiEventSink } from './events/event-sink';
import { EventRecorder, EventRecorderOptions } from './events/recorder';
import { ClientListWatchSource } from './informer/client-list-watch-source';
import { Informer } from './informer/informer';
import type { WatcherOptions } from './informer/watcher';
import type { KubernetesObject } from './kubernetes-object';
import { ApiLeaseLock } from './leader-election/api-lease-lock';
import { LeaderElector, LeadershipEndReason } from './leader-election/leader-elector';
import { createLogger } from './logging/logger';
import { RuntimeMetrics } from './metrics/runtime-metrics';
import { parseBindAddress } from './server/bind-address';
import { HttpEndpointServer } from './server/http-endpoint-server';

/** Leader election settings of a {@link Manager}. */
export interface LeaderElectionOptions {
  /** Name of the Lease. */
  readonly leaseName: string;
  /** Namespace of the Lease. */
  readonly leaseNamespace: string;
  /**
   * This replica's identity in the Lease.
   * @default `<hostname>_<random hex>`
   */
  readonly identity?: string;
  /** @default 15000 */
  readonly leaseDurationMs?: number;
  /** @default 10000 */
  readonly renewDeadlineMs?: number;
  /** @default 2000 */
  readonly retryPeriodMs?: number;
}

/** Options of {@link Manager}. */
export interface ManagerOptions {
  /** Where the API server is and how to authenticate (see `loadKubeConfig`). */
  readonly kubeConfig: KubeConfig;
  /**
   * Watch and reconcile only this namespace.
   * @default all namespaces
   */
  readonly namespace?: string;
  /**
   * Elect a leader before starting controllers; omit to run controllers at once (a single replica).
   * @default no leader election
   */
  readonly leaderElection?: LeaderElectionOptions;
  /**
   * `/metrics` bind address (`':8080'`, `'127.0.0.1:0'`); `'0'` disables it.
   * @default ':8080' (controller-runtime)
   */
  readonly metricsBindAddress?: string;
  /**
   * `/healthz` and `/readyz` bind address; `'0'` disables it.
   * @default ':8081' (kubebuilder)
   */
  readonly healthProbeBindAddress?: string;
  /**
   * How long in-flight reconciles may run after shutdown starts.
   * @default 30000
   */
  readonly gracefulShutdownTimeoutMs?: number;
  /**
   * Stop gracefully on SIGTERM and SIGINT.
   * @default true
   */
  readonly handleSignals?: boolean;
  /**
   * Field manager of server-side apply.
   * @default 'redkite'
   */
  readonly fieldManager?: string;
  /** Informer tuning (watch timeouts, backoff); mostly for tests. @default client-go's values */
  readonly informer?: Omit<WatcherOptions, 'onError' | 'clock'>;
  /** @default createLogger() */
  readonly logger?: Logger;
  /** @default a fresh registry per manager */
  readonly metrics?: RuntimeMetrics;
  /** @default systemClock */
  readonly clock?: Clock;
}

type ManagerState = 'new' | 'running' | 'stopping' | 'stopped';

/**
 * Owns everything a controller process runs: shared informers, controllers, leader election, the metrics and probe
 * servers, and graceful shutdown. Caches run on every replica (so a successor is warm); controllers run only on the
 * leader.
 */
export class Manager implements ControllerHost {
  readonly client: KubernetesClient;
  readonly logger: Logger;
  readonly metrics: RuntimeMetrics;
  readonly clock: Clock | undefined;
  private readonly options: ManagerOptions;
  private readonly informers = new Map<string, Informer<KubernetesObject>>();
  private readonly controllers: Controller[] = [];
  private readonly servers: HttpEndpointServer[] = [];
  private readonly stopRequested = new AbortController();
  /** Ends the elector's renew loop; aborted only after controllers drained, so renewal continues while they do. */
  private readonly electorStop = new AbortController();
  private elector: LeaderElector | undefined;
  private electorRun: Promise<void> | undefined;
  private state: ManagerState = 'new';
  private stopping: Promise<void> | undefined;
  private leadershipLost: LeadershipLostError | undefined;
  private boundMetricsPort: number | undefined;
  private boundProbePort: number | undefined;

  constructor(options: ManagerOptions) {
    this.options = options;
    this.logger = options.logger ?? createLogger();
    this.metrics = options.metrics ?? new RuntimeMetrics();
    this.clock = options.clock;
    this.client = new KubernetesClient(new KubernetesRestClient(options.kubeConfig), { fieldManager: options.fieldManager });
  }

  /** Port `/metrics` listens on once started (useful with port 0). */
  get metricsPort(): number | undefined {
    return this.boundMetricsPort;
  }

  /** Port `/healthz` and `/readyz` listen on once started. */
  get healthProbePort(): number | undefined {
    return this.boundProbePort;
  }

  /** Begins declaring a controller. */
  controller(name: string): ControllerBuilder {
    if (this.controllers.some((controller) => controller.name === name)) throw new Error(`duplicate controller name ${name}`);
    return new ControllerBuilder(this, name);
  }

  getInformer<T extends KubernetesObject>(kind: WatchedKind): Informer<T> {
    const target = { ...kind, namespace: this.options.namespace };
    const id = JSON.stringify([target.apiVersion, target.kind, target.namespace, target.labelSelector, target.fieldSelector]);
    let informer = this.informers.get(id);
    if (!informer) {
      informer = new Informer(new ClientListWatchSource<KubernetesObject>(this.client, target), {
        ...this.options.informer,
        clock: this.clock,
        logger: this.logger.child({ component: 'informer', kind: kind.kind }),
      });
      this.informers.set(id, informer);
      if (this.state === 'running') informer.start();
    }
    return informer as unknown as Informer<T>;
  }

  addController(controller: Controller): void {
    if (this.state !== 'new') throw new Error('controllers must be added before the manager starts');
    this.controllers.push(controller);
  }

  /** An Events recorder writing `events.k8s.io/v1` through this manager's client. */
  eventRecorder(options: Omit<EventRecorderOptions, 'logger' | 'clock'>): EventRecorder {
    return new EventRecorder(new ApiEventSink(this.client), { ...options, clock: this.clock, logger: this.logger.child({ component: 'events' }) });
  }

  /** True once every informer has listed its kind. */
  hasSynced(): boolean {
    return [...this.informers.values()].every((informer) => informer.hasSynced());
  }

  /**
   * Runs until {@link stop} (or SIGTERM/SIGINT). Resolves after a graceful stop; rejects with
   * {@link LeadershipLostError} when leadership was lost, after stopping everything (the process should exit).
   */
  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error('a manager starts once');
    this.state = 'running';
    const removeSignalHandlers = this.options.handleSignals === false ? () => undefined : this.installSignalHandlers();
    try {
      await this.startServers();
      for (const informer of this.informers.values()) informer.start();
      if (this.options.leaderElection) this.startLeaderElection(this.options.leaderElection);
      else void this.startControllers(undefined);
      await new Promise<void>((resolve) => this.stopRequested.signal.addEventListener('abort', () => resolve(), { once: true }));
      await this.stopping;
    } finally {
      removeSignalHandlers();
    }
    if (this.leadershipLost) throw this.leadershipLost;
  }

  /**
   * Without leader election: always true. With it: whether the lease is still ours by the monotonic clock; when it
   * is not, leadership ends synchronously (every reconcile's signal aborts) before this returns.
   */
  leaseCurrent(): boolean {
    return this.elector === undefined || this.elector.leaseCurrent();
  }

  /** Graceful stop: drain controllers, release the lease, stop informers and servers. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= this.shutDown();
    this.stopRequested.abort();
    return this.stopping;
  }

  private async shutDown(): Promise<void> {
    this.state = 'stopping';
    this.logger.info('shutting down');
    // A controller that lost its lease must not finish what it started (I6): in-flight reconciles are aborted at once.
    const deadlineMs = this.leadershipLost !== undefined ? 0 : (this.options.gracefulShutdownTimeoutMs ?? 30_000);
    await Promise.all(this.controllers.map((controller) => controller.stop(deadlineMs)));
    // Release only after reconciles stopped, so the successor never overlaps with us.
    if (this.elector) {
      this.electorStop.abort();
      await this.electorRun;
      await this.elector.release();
    }
    await Promise.all([...this.informers.values()].map((informer) => informer.stop()));
    await Promise.all(this.servers.map((server) => server.close()));
    this.client.rest.close();
    this.state = 'stopped';
    this.logger.info('stopped');
  }

  private startLeaderElection(options: LeaderElectionOptions): void {
    const identity = options.identity ?? `${hostname()}_${randomBytes(6).toString('hex')}`;
    const leaseName = options.leaseName;
    this.metrics.leaderElection.setLeading(leaseName, false);
    this.elector = new LeaderElector({
      lock: new ApiLeaseLock(this.client.rest, options.leaseNamespace, leaseName),
      identity,
      leaseDurationMs: options.leaseDurationMs,
      renewDeadlineMs: options.renewDeadlineMs,
      retryPeriodMs: options.retryPeriodMs,
      clock: this.clock,
      logger: this.logger.child({ component: 'leader-election' }),
      onStartedLeading: (leadership) => {
        this.metrics.leaderElection.setLeading(leaseName, true);
        void this.startControllers(leadership);
      },
      onStoppedLeading: (reason: LeadershipEndReason) => {
        this.metrics.leaderElection.setLeading(leaseName, false);
        if (reason === 'released') return;
        this.leadershipLost = new LeadershipLostError(`lost leadership of lease ${options.leaseNamespace}/${leaseName}: ${reason}`);
        void this.stop();
      },
      onNewLeader: (holder) => this.logger.info({ leader: holder }, 'new leader observed'),
    });
    this.electorRun = this.elector.run(this.electorStop.signal);
  }

  private async startControllers(leadership: AbortSignal | undefined): Promise<void> {
    const stopOrLost = leadership ? AbortSignal.any([leadership, this.stopRequested.signal]) : this.stopRequested.signal;
    const synced = await Promise.all([...this.informers.values()].map((informer) => informer.waitForSync(stopOrLost)));
    if (!synced.every(Boolean)) return;
    this.logger.info('caches synced; starting controllers');
    for (const controller of this.controllers) controller.start(leadership);
  }

  private async startServers(): Promise<void> {
    const metricsAddress = parseBindAddress(this.options.metricsBindAddress ?? ':8080');
    if (metricsAddress) {
      const server = new HttpEndpointServer(
        'metrics',
        {
          '/metrics': async () => ({
            statusCode: 200,
            contentType: this.metrics.registry.contentType,
            body: await this.metrics.registry.metrics(),
          }),
        },
        this.logger,
      );
      this.servers.push(server);
      this.boundMetricsPort = await server.listen(metricsAddress);
    }
    const probeAddress = parseBindAddress(this.options.healthProbeBindAddress ?? ':8081');
    if (probeAddress) {
      const text = (statusCode: number, body: string) => ({ statusCode, contentType: 'text/plain; charset=utf-8', body });
      const server = new HttpEndpointServer(
        'health-probes',
        {
          '/healthz': async () => (this.leadershipLost ? text(500, `${this.leadershipLost.message}\n`) : text(200, 'ok\n')),
          '/readyz': async () => (this.hasSynced() ? text(200, 'ok\n') : text(503, 'caches not synced\n')),
        },
        this.logger,
      );
      this.servers.push(server);
      this.boundProbePort = await server.listen(probeAddress);
    }
  }

  private installSignalHandlers(): () => void {
    const onSignal = (signal: NodeJS.Signals): void => {
      this.logger.info({ signal }, 'signal received; stopping gracefully');
      void this.stop();
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
    return () => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    };
  }
}
