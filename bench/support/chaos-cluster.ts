import type { KubeConfig } from '@kubernetes/client-node';
import type { RedisEndpoint } from '../../operator/redis';
import { OperatorProcess, operatorKubeconfig } from '../../test/e2e/controller-support/operator-process';
import { RedisClusterApi } from '../../test/e2e/controller-support/redis-cluster-api';
import { createTestNamespace, deleteTestNamespace } from '../../test/e2e/support/test-namespace';
import type { ControllerIdentity, NodeAgentClient } from '../../test/e2e/support/node-agent-client';
import type { SampledMember } from '../../test/support/history';
import { waitUntil } from '../../test/support/wait-until';
import type { FaultContext } from './chaos-faults';

const REDIS_PORT = 6379;

/** Options of {@link ChaosCluster.create}. */
export interface ChaosClusterOptions {
  readonly admin: KubeConfig;
  readonly agent: NodeAgentClient;
  /** Namespace prefix; a random suffix makes it unique. */
  readonly namespacePrefix: string;
  readonly spec: Readonly<Record<string, unknown>>;
  readonly log: (line: string) => void;
}

/** The cluster at a healthy moment. */
export interface HealthyCluster {
  readonly primary: string;
  readonly primaryEndpoint: RedisEndpoint;
}

/**
 * One schedule's world: its own namespace, its own `redkite run` (under the release's ServiceAccount, watching that
 * namespace only, so a controller kill hits this schedule alone) running as a harness controller identity (its own
 * source address, so a pod can be partitioned from it alone, and its own apiserver proxy, whose watches can be
 * stalled), and one RedisCluster named `cache`.
 */
export class ChaosCluster {
  readonly name = 'cache';
  private controllerDown = false;

  private constructor(
    private readonly options: ChaosClusterOptions,
    readonly namespace: string,
    readonly identity: ControllerIdentity,
    readonly controller: OperatorProcess,
    readonly api: RedisClusterApi,
  ) {}

  /** Creates the namespace, starts the controller, creates the RedisCluster and waits until it is healthy. */
  static async create(options: ChaosClusterOptions): Promise<ChaosCluster> {
    const namespace = await createTestNamespace(options.namespacePrefix, { config: options.admin });
    const identity = await options.agent.registerController(`${namespace}-controller`);
    const controller = new OperatorProcess(await operatorKubeconfig(options.admin, identity), namespace, [], identity);
    const api = new RedisClusterApi(options.admin, () => namespace, () => controller.tail(30));
    const cluster = new ChaosCluster(options, namespace, identity, controller, api);
    try {
      controller.start();
      await api.create(cluster.name, { ...options.spec });
      await cluster.waitHealthy(180_000);
    } catch (error) {
      await cluster.delete();
      throw error;
    }
    return cluster;
  }

  get controllerLogFile(): string {
    return this.controller.logFile;
  }

  /** Where applications write: the primary Service's ClusterIP, which the node agent proxies. */
  async serviceEndpoint(): Promise<RedisEndpoint> {
    return { host: await this.api.serviceAddress(this.name), port: REDIS_PORT, password: await this.api.password(this.name) };
  }

  /** Every pod that has an IP, for the ROLE sampler. */
  async members(password: string): Promise<SampledMember[]> {
    const pods = await this.api.pods(this.name);
    return pods.flatMap((pod) => (pod.status?.podIP ? [{ name: pod.metadata!.name!, host: pod.status.podIP, port: REDIS_PORT, password }] : []));
  }

  /**
   * Ready, exactly one pod labelled primary, the primary Service proxied to that pod alone, and that pod's Redis
   * reporting role master: the state a schedule starts from and must come back to.
   */
  async waitHealthy(timeoutMilliseconds: number): Promise<HealthyCluster> {
    let last = 'nothing checked yet';
    return waitUntil(
      'the RedisCluster is healthy',
      async () => {
        // A new cluster has no Secret and Service yet: reading them fails until the controller made them.
        const password = await this.api.password(this.name);
        const clusterIp = await this.api.serviceAddress(this.name);
        const status = await this.api.status(this.name);
        const ready = status.conditions?.find((condition) => condition.type === 'Ready');
        if (ready?.status !== 'True' || status.primary === undefined) return void (last = `Ready ${ready?.status ?? 'absent'}: ${ready?.message ?? ''}`);
        const labelled = await this.api.podsLabelledPrimary(this.name);
        if (labelled.length !== 1 || labelled[0] !== status.primary) return void (last = `pods labelled primary: ${labelled.join(', ') || 'none'}`);
        const primaryIp = await this.api.podIp(status.primary);
        const service = (await this.options.agent.services()).find((candidate) => candidate.clusterIp === clusterIp && candidate.port === REDIS_PORT);
        if (service?.endpoints.length !== 1 || service.endpoints[0] !== `${primaryIp}:${REDIS_PORT}`) {
          const pods = (await this.api.pods(this.name)).map((pod) => {
            const podReady = pod.status?.conditions?.find((condition) => condition.type === 'Ready')?.status ?? '?';
            return `${pod.metadata?.name} ${pod.status?.podIP ?? 'no IP'} Ready=${podReady} role=${pod.metadata?.labels?.['redis.redkite.io/role'] ?? '-'}`;
          });
          return void (last = `Service ${clusterIp} endpoints [${service?.endpoints.join(', ') ?? 'no proxy'}], primary ${primaryIp}; pods: ${pods.join('; ')}`);
        }
        const primaryEndpoint = { host: primaryIp, port: REDIS_PORT, password };
        const client = await this.api.connectToPod(this.name, status.primary);
        try {
          const role = ((await client.call('ROLE')) as unknown[])[0];
          if (role !== 'master') return void (last = `${status.primary} reports role ${String(role)}`);
        } finally {
          client.disconnect();
        }
        return { primary: status.primary, primaryEndpoint };
      },
      { timeoutMilliseconds, pollIntervalMilliseconds: 250 },
    ).catch((error: unknown) => {
      const cause = (error as Error).cause instanceof Error ? `; last error: ${((error as Error).cause as Error).message}` : '';
      throw new Error(`${(error as Error).message}; last: ${last}${cause}; controller log:\n${this.controller.tail(20)}`, { cause: error });
    });
  }

  /** What the faults act on. */
  faultContext(): FaultContext {
    return {
      agent: this.options.agent,
      namespace: this.namespace,
      controller: this.identity,
      roles: async () => {
        // The label when status names none (between a failover's record and its status write).
        const pods = await this.api.pods(this.name);
        const labelled = pods.find((pod) => pod.metadata?.labels?.['redis.redkite.io/role'] === 'primary')?.metadata?.name;
        const primary = (await this.api.status(this.name)).primary ?? labelled;
        return { primary, replicas: pods.map((pod) => pod.metadata!.name!).filter((pod) => pod !== primary).sort() };
      },
      killController: () => this.killController(),
      startController: () => this.startController(),
    };
  }

  /**
   * Heals every partition of the local cluster (schedules run one at a time), resumes the controller's watches, thaws
   * every pod (a fault may have frozen one that another fault then replaced) and restarts the controller.
   */
  async healEverything(): Promise<void> {
    await this.options.agent.healAll();
    await this.options.agent.resumeWatches(this.identity);
    for (const pod of await this.api.pods(this.name)) {
      await this.options.agent.thaw(this.namespace, pod.metadata!.name!).catch(() => undefined);
    }
    await this.startController();
  }

  /** Deletes the RedisCluster (its finalizer needs the controller), stops the controller and deletes the namespace. */
  async delete(): Promise<void> {
    try {
      await this.startController();
      await this.api.delete(this.name).catch(() => undefined);
      await waitUntil('the RedisCluster is gone', async () => !(await this.api.exists(this.name)), { timeoutMilliseconds: 60_000, pollIntervalMilliseconds: 250 });
    } catch (error) {
      this.options.log(`${this.namespace}: the RedisCluster was not deleted cleanly (${(error as Error).message.split('\n')[0]}); deleting the namespace anyway`);
    } finally {
      await this.controller.stop();
      await this.options.agent.unregisterController(this.identity.name).catch(() => undefined);
      await deleteTestNamespace(this.namespace, { wait: true, config: this.options.admin }).catch((error: unknown) => {
        this.options.log(`${this.namespace}: namespace not gone yet (${(error as Error).message})`);
      });
    }
  }

  /** The controller's exit code when it ended on its own (a crash), else null. */
  get controllerExitCode(): number | null {
    return this.controller.exitCode;
  }

  private async killController(): Promise<boolean> {
    if (this.controllerDown) return false;
    this.controllerDown = true;
    this.controller.kill();
    return true;
  }

  private async startController(): Promise<void> {
    if (!this.controllerDown) return;
    this.controller.start();
    this.controllerDown = false;
  }
}
