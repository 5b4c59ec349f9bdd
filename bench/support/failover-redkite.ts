import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Redis from 'ioredis';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { launchCluster, stopCluster } from '../../test/cluster/cluster-launcher';
import type { ClusterEndpoints } from '../../test/cluster/state-dir';
import { installCrd, installOperatorRelease } from '../../test/e2e/controller-support/release';
import { operatorKubeconfig } from '../../test/e2e/controller-support/operator-process';
import { RedisClusterApi, type ClusterStatus } from '../../test/e2e/controller-support/redis-cluster-api';
import { NodeAgentClient } from '../../test/e2e/support/node-agent-client';
import { AcknowledgedWriter, verifyAcknowledgedKeys } from '../../test/support/acknowledged-writer';
import { waitUntil } from '../../test/support/wait-until';
import { ControllerProcess } from './convergence-controller';
import type { FailoverTrial } from './failover-report';

const REPOSITORY_ROOT = resolve(__dirname, '..', '..');
const REDIS_PORT = 6379;

/** Options of {@link RedkiteFailoverBench.start}. */
export interface RedkiteFailoverOptions {
  /** spec.failureDetectionMilliseconds of the RedisCluster. */
  readonly detectionMilliseconds: number;
  /** `WAIT 1 <ms>` of the writer. */
  readonly waitTimeoutMilliseconds: number;
  /** The agent's crash-loop back-off base (the first restart of a container is always immediate). */
  readonly restartBackoffBaseMilliseconds: number;
  readonly restartBackoffMaxMilliseconds: number;
  readonly log: (line: string) => void;
}

/**
 * What happens to the killed primary's container:
 * - `restarted`: the agent restarts it at once, like a kubelet; it boots fenced (a replica of an unreachable address);
 * - `keptDown`: the restarted process is SIGSTOPped the moment the agent reports its PID and SIGCONTed only at the end
 *   of the trial, so the primary stays unreachable past the detection threshold, as in the Sentinel setup (whose killed
 *   process stays down).
 */
export type KillScenario = 'restarted' | 'keptDown';

/** The controller's decision that moved the primary, from its log. */
export interface ControllerDecision {
  /** Milliseconds from the kill to the log line. */
  readonly afterKillMilliseconds: number;
  /** The Event reason: PrimaryFailedOver (detection timer ran out) or PrimaryDerived (labelled primary reports role replica). */
  readonly event: string;
  readonly reason: string;
}

/** Write errors with the same message. */
export interface ErrorGroup {
  readonly message: string;
  readonly count: number;
  readonly firstMilliseconds: number;
  readonly lastMilliseconds: number;
}

/** What one redkite trial measured, beyond the common figures. */
export interface RedkiteTrial extends FailoverTrial {
  readonly scenario: KillScenario;
  /** The killed container's new process was seen by the agent this long after the kill (undefined: not within the trial). */
  readonly restartedAfterMilliseconds: number | undefined;
  /** keptDown: the restarted process was frozen this long after the kill. */
  readonly frozenAfterMilliseconds: number | undefined;
  readonly decision: ControllerDecision | undefined;
  /** Changes of the primary Service's endpoints and of the writer connection's state, ms after the kill. */
  readonly timeline: string[];
  /** The writer's errors after the kill, grouped by message (times relative to the kill). */
  readonly errorsAfterKill: ErrorGroup[];
  /** The controller's log lines written between the kill and the end of the trial. */
  readonly controllerLog: string[];
}

/**
 * One local cluster, the controller as a child process under the release's ServiceAccount and RBAC, one RedisCluster
 * (3 pods, minReplicasToWrite 1), and SIGKILL-the-primary trials against it with a writer on the primary Service.
 */
export class RedkiteFailoverBench {
  readonly namespace = 'bench-failover';
  readonly clusterName = 'cache';
  private endpoints: ClusterEndpoints | undefined;
  private controller: ControllerProcess | undefined;
  private clusters: RedisClusterApi | undefined;
  private agent: NodeAgentClient | undefined;
  private readonly logFolder = mkdtempSync(join(tmpdir(), 'redkite-bench-failover-'));

  private constructor(
    private readonly options: RedkiteFailoverOptions,
    readonly stateDir: string,
  ) {}

  get controllerLogFile(): string {
    return join(this.logFolder, 'controller.log');
  }

  get loopbackBlock(): string | undefined {
    return this.endpoints?.loopbackBlock;
  }

  /** Starts everything up to a Ready RedisCluster; on failure, stops what it started and rethrows. */
  static async start(options: RedkiteFailoverOptions): Promise<RedkiteFailoverBench> {
    const bench = new RedkiteFailoverBench(options, resolve(REPOSITORY_ROOT, '.cluster', `bench-failover-${process.pid}`));
    try {
      await bench.setUp();
    } catch (error) {
      await bench.stop();
      throw error;
    }
    return bench;
  }

  private async setUp(): Promise<void> {
    const { log } = this.options;
    log(`starting a fresh local cluster in ${this.stateDir}`);
    this.endpoints = await launchCluster({
      stateDir: this.stateDir,
      exitWithParent: true,
      restartBackoffBaseMilliseconds: this.options.restartBackoffBaseMilliseconds,
      restartBackoffMaxMilliseconds: this.options.restartBackoffMaxMilliseconds,
      onProgress: (line) => {
        if (line.includes('[cluster:build]') && !line.includes('cached at')) log(line);
      },
    });
    log(`cluster ready (${this.endpoints.apiServerUrl}, pods and ClusterIPs in ${this.endpoints.loopbackBlock})`);
    const admin = new KubeConfig();
    admin.loadFromFile(this.endpoints.kubeconfig);
    this.agent = new NodeAgentClient(this.endpoints.agentUrl);
    await installCrd(admin);
    await installOperatorRelease(admin);
    const core = admin.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: this.namespace } } });
    await waitUntil('the namespace has its default ServiceAccount', async () => {
      await core.readNamespacedServiceAccount({ namespace: this.namespace, name: 'default' });
      return true;
    }, { timeoutMilliseconds: 60_000, pollIntervalMilliseconds: 200 });

    this.controller = new ControllerProcess(await operatorKubeconfig(admin), this.namespace, this.controllerLogFile);
    await this.controller.start();
    log(`controller running (pid ${this.controller.pid}, release ServiceAccount token; log ${this.controllerLogFile})`);

    this.clusters = new RedisClusterApi(admin, () => this.namespace, () => this.controller?.tail(30) ?? '');
    await this.clusters.create(this.clusterName, {
      replicas: 3,
      minReplicasToWrite: 1,
      failureDetectionMilliseconds: this.options.detectionMilliseconds,
    });
    const started = Date.now();
    const status = await this.waitHealthy('the new RedisCluster');
    log(`RedisCluster ${this.namespace}/${this.clusterName} Ready in ${((Date.now() - started) / 1000).toFixed(1)} s, primary ${status.primary}`);
  }

  /**
   * Ready with every pod serving, and the primary Service's proxy pointing at the primary alone: the state a
   * trial starts from.
   */
  private async waitHealthy(what: string): Promise<ClusterStatus & { primary: string }> {
    const clusters = this.clusters!;
    const status = await clusters.waitReady(this.clusterName, `${what} Ready`, { timeoutMs: 180_000 });
    const primary = status.primary!;
    const clusterIp = await clusters.serviceAddress(this.clusterName);
    const primaryIp = await clusters.podIp(primary);
    await waitUntil(`the Service ${this.clusterName} routes to ${primary} (${primaryIp}) alone`, async () => {
      const services = await this.agent!.services();
      const service = services.find((candidate) => candidate.clusterIp === clusterIp && candidate.port === REDIS_PORT);
      return service !== undefined && service.endpoints.length === 1 && service.endpoints[0] === `${primaryIp}:${REDIS_PORT}`;
    }, { timeoutMilliseconds: 60_000, pollIntervalMilliseconds: 100 });
    return { ...status, primary };
  }

  /** One SIGKILL-the-primary trial. */
  async runTrial(trial: number, scenario: KillScenario): Promise<RedkiteTrial> {
    const clusters = this.clusters!;
    const agent = this.agent!;
    const before = await this.waitHealthy(`before trial ${trial}, the cluster`);
    const killedPrimary = before.primary;
    const password = await clusters.password(this.clusterName);
    const clusterIp = await clusters.serviceAddress(this.clusterName);
    // What an application would use: the primary Service, fast reconnects, fail fast while disconnected.
    const client = new Redis({
      host: clusterIp,
      port: REDIS_PORT,
      password,
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 1000,
      commandTimeout: 1000,
      retryStrategy: () => 50,
    });
    client.on('error', () => undefined);
    const clientEvents: Array<{ at: number; what: string }> = [];
    for (const event of ['connect', 'ready', 'close', 'reconnecting'] as const) {
      client.on(event, () => clientEvents.push({ at: Date.now(), what: `client ${event}` }));
    }
    await client.connect();
    const writer = AcknowledgedWriter.start({
      client,
      keyPrefix: `${scenario}-${trial}`,
      replicas: 1,
      waitTimeoutMilliseconds: this.options.waitTimeoutMilliseconds,
    });
    let restartWatch: RestartWatch | undefined;
    let endpointWatch: EndpointWatch | undefined;
    try {
      await waitUntil('the writer has 20 acknowledged writes', () => writer.acknowledged.length >= 20, { timeoutMilliseconds: 30_000 });
      const killedPid = (await agent.processOf(this.namespace, killedPrimary))?.containers[0]?.pid;
      const logOffset = fileSize(this.controllerLogFile);
      const killedAt = Date.now();
      await agent.kill(this.namespace, killedPrimary);
      restartWatch = watchRestart(agent, this.namespace, killedPrimary, killedPid, killedAt, scenario === 'keptDown');
      endpointWatch = watchEndpoints(agent, clusterIp);
      const firstAfterKill = await waitUntil(
        'a write sent after the kill is acknowledged',
        () => writer.firstAcknowledgedStartedAfter(killedAt),
        { timeoutMilliseconds: this.options.detectionMilliseconds + 60_000, pollIntervalMilliseconds: 5 },
      ).catch((error: unknown) => {
        throw new Error(
          `trial ${trial}: no acknowledged write after killing ${killedPrimary}; ${writer.errors.length} write errors ` +
            `(last: ${writer.errors.at(-1)?.message ?? 'none'}), ${writer.unacknowledgedWrites} unacknowledged; controller log:\n` +
            this.controller!.tail(40),
          { cause: error },
        );
      });
      const acknowledgedBefore = writer.acknowledged.length;
      await waitUntil('20 more writes are acknowledged', () => writer.acknowledged.length >= acknowledgedBefore + 20, { timeoutMilliseconds: 30_000 });
      await writer.stop();
      const endpointChanges = await endpointWatch.stop();
      endpointWatch = undefined;
      const restart = await restartWatch.stop();
      restartWatch = undefined;
      if (restart.frozenAt !== undefined) await agent.thaw(this.namespace, killedPrimary);

      const after = await this.waitHealthy(`after trial ${trial}, the cluster`);
      const controllerLog = readFrom(this.controllerLogFile, logOffset);
      const reader = await this.connect(after.primary, password);
      let lost: number;
      try {
        const role = ((await reader.call('ROLE')) as unknown[])[0];
        if (role !== 'master') throw new Error(`trial ${trial}: ${after.primary} is labelled primary but reports role ${String(role)}`);
        lost = (await verifyAcknowledgedKeys(reader, writer.acknowledged)).length;
      } finally {
        reader.disconnect();
      }
      return {
        trial,
        killedPrimary,
        newPrimary: after.primary,
        failoverMilliseconds: firstAfterKill.acknowledgedAt - killedAt,
        acknowledgedWrites: writer.acknowledged.length,
        lostAcknowledgedWrites: lost,
        writeErrors: writer.errors.length,
        scenario,
        restartedAfterMilliseconds: restart.seenAt === undefined ? undefined : restart.seenAt - killedAt,
        frozenAfterMilliseconds: restart.frozenAt === undefined ? undefined : restart.frozenAt - killedAt,
        decision: controllerDecision(controllerLog, killedAt),
        errorsAfterKill: groupErrors(writer.errors, killedAt),
        timeline: [...endpointChanges, ...clientEvents.filter((event) => event.at >= killedAt)]
          .sort((a, b) => a.at - b.at)
          .map((event) => `+${event.at - killedAt} ms ${event.what}`),
        controllerLog,
      };
    } finally {
      await endpointWatch?.stop();
      const restart = await restartWatch?.stop();
      if (restart?.frozenAt !== undefined) await agent.thaw(this.namespace, killedPrimary).catch(() => undefined);
      await writer.stop();
      client.disconnect();
    }
  }

  private async connect(pod: string, password: string): Promise<Redis> {
    const host = await this.clusters!.podIp(pod);
    const redis = new Redis({ host, port: REDIS_PORT, password, lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, connectTimeout: 2000, commandTimeout: 5000, retryStrategy: () => 100 });
    redis.on('error', () => undefined);
    await redis.connect();
    return redis;
  }

  tail(lines = 40): string {
    return this.controller?.tail(lines) ?? '(no controller)';
  }

  /** Stops the controller, then the cluster (every pod, the apiserver, etcd). Idempotent. */
  async stop(): Promise<void> {
    const { log } = this.options;
    const controller = this.controller;
    this.controller = undefined;
    if (controller) {
      log('stopping the controller');
      await controller.stop();
    }
    log('stopping the local cluster');
    const stopped = await stopCluster(this.stateDir);
    if (stopped.leftovers.length > 0) log(`killed ${stopped.leftovers.length} leftover processes of the cluster`);
    rmSync(this.stateDir, { recursive: true, force: true });
  }
}

interface RestartWatch {
  /** Stops watching; resolves when the new PID was first seen and when it was frozen, if it was. */
  stop(): Promise<{ seenAt: number | undefined; frozenAt: number | undefined }>;
}

/**
 * Polls the agent for the killed container's new process (every 5 ms when it must be frozen at once, else every
 * 50 ms) and, with `freeze`, SIGSTOPs it as soon as its PID is known.
 */
function watchRestart(agent: NodeAgentClient, namespace: string, pod: string, killedPid: number | undefined, killedAt: number, freeze: boolean): RestartWatch {
  let running = true;
  let seenAt: number | undefined;
  let frozenAt: number | undefined;
  const loop = (async () => {
    while (running && seenAt === undefined) {
      try {
        const pid = (await agent.processOf(namespace, pod))?.containers[0]?.pid;
        if (pid !== undefined && pid !== killedPid) {
          seenAt = Date.now();
          if (freeze) {
            await agent.freeze(namespace, pod);
            frozenAt = Date.now();
          }
        }
      } catch {
        // the agent is busy or the process is not there yet: try again
      }
      if (Date.now() - killedAt > 120_000) break;
      await new Promise((resolveSleep) => setTimeout(resolveSleep, freeze ? 5 : 50));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { seenAt, frozenAt };
    },
  };
}

interface EndpointWatch {
  stop(): Promise<Array<{ at: number; what: string }>>;
}

/** Polls the agent's Service proxies every 10 ms and records each change of the Service's endpoints. */
function watchEndpoints(agent: NodeAgentClient, clusterIp: string): EndpointWatch {
  let running = true;
  const changes: Array<{ at: number; what: string }> = [];
  let last: string | undefined;
  const loop = (async () => {
    while (running) {
      try {
        const service = (await agent.services()).find((candidate) => candidate.clusterIp === clusterIp && candidate.port === REDIS_PORT);
        const endpoints = service ? service.endpoints.join(',') || '(none)' : '(no proxy)';
        if (endpoints !== last) changes.push({ at: Date.now(), what: `Service endpoints ${endpoints}` });
        last = endpoints;
      } catch {
        // try again
      }
      await new Promise((resolveSleep) => setTimeout(resolveSleep, 10));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return changes;
    },
  };
}

/** The first controller log line after the kill whose topology actions promote a pod. */
function controllerDecision(lines: readonly string[], killedAt: number): ControllerDecision | undefined {
  for (const line of lines) {
    let entry: { msg?: string; time?: string | number; reason?: string; actions?: Array<{ kind: string; reason?: string }> };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    if (entry.msg !== 'topology actions' || !entry.actions?.some((action) => action.kind === 'promote')) continue;
    const event = entry.actions.find((action) => action.kind === 'emitEvent')?.reason ?? '(no event)';
    return { afterKillMilliseconds: new Date(entry.time ?? 0).getTime() - killedAt, event, reason: entry.reason ?? '' };
  }
  return undefined;
}

function groupErrors(errors: ReadonlyArray<{ at: number; message: string }>, since: number): ErrorGroup[] {
  const groups = new Map<string, { message: string; count: number; firstMilliseconds: number; lastMilliseconds: number }>();
  for (const error of errors) {
    if (error.at < since) continue;
    const message = error.message.replace(/\d+\.\d+\.\d+\.\d+(:\d+)?/g, '<address>').slice(0, 100);
    const group = groups.get(message);
    const at = error.at - since;
    if (group) {
      group.count++;
      group.lastMilliseconds = at;
    } else {
      groups.set(message, { message, count: 1, firstMilliseconds: at, lastMilliseconds: at });
    }
  }
  return [...groups.values()];
}

function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

function readFrom(file: string, offset: number): string[] {
  try {
    return readFileSync(file).subarray(offset).toString('utf8').split('\n').filter((line) => line.trim() !== '');
  } catch {
    return [];
  }
}
