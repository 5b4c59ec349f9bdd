import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ControlPlaneBinaries } from '../binaries';
import { findFreePort } from '../free-port';
import { KubeRestClient } from '../kube/kube-rest-client';
import { writeAdminKubeconfig } from '../kubeconfig';
import type { LoopbackBlock } from '../loopback-block';
import { createClusterPki, type ClusterPki } from '../pki';
import type { ProcessRegistry } from '../process/process-registry';
import type { SupervisedProcess } from '../process/supervised-process';
import type { StateDirLayout } from '../state-dir';
import { RunningEtcd } from './etcd';
import { KubeApiServer } from './kube-apiserver';
import { KubeControllerManagerOptions, startKubeControllerManager } from './kube-controller-manager';

/** What the control plane needs to start. */
export interface ControlPlaneOptions {
  readonly layout: StateDirLayout;
  readonly binaries: ControlPlaneBinaries;
  readonly loopbackBlock: LoopbackBlock;
  readonly registry: ProcessRegistry;
  readonly log: (message: string) => void;
}

/**
 * etcd + kube-apiserver + kube-controller-manager on loopback, with a fresh PKI and an admin kubeconfig.
 * Also the fault injection the controller's tests need: restart the apiserver, compact etcd.
 */
export class ControlPlane {
  private constructor(
    readonly pki: ClusterPki,
    readonly kubeconfigPath: string,
    readonly client: KubeRestClient,
    private readonly etcd: RunningEtcd,
    private readonly apiServer: KubeApiServer,
    private controllerManager: SupervisedProcess,
    private readonly controllerManagerOptions: KubeControllerManagerOptions,
  ) {}

  /** The apiserver's HTTPS URL. */
  get apiServerUrl(): string {
    return this.apiServer.url;
  }

  /** Starts everything in order and resolves once the apiserver is ready. On failure, stops what started. */
  static async start(options: ControlPlaneOptions): Promise<ControlPlane> {
    const { layout, binaries, loopbackBlock, registry, log } = options;
    const kubernetesServiceIp = loopbackBlock.kubernetesServiceIp;
    const pki = createClusterPki(layout.pki, { ipAddresses: ['127.0.0.1', kubernetesServiceIp] });
    const [etcdClientPort, etcdPeerPort, apiServerPort] = await distinctFreePorts(3);
    const stopOnFailure: Array<() => Promise<unknown>> = [];
    try {
      log(`starting etcd on 127.0.0.1:${etcdClientPort}`);
      const etcd = await RunningEtcd.start({
        binary: binaries.etcd,
        dataDir: etcdDataDirFor(layout.root),
        clientPort: etcdClientPort,
        peerPort: etcdPeerPort,
        logFile: layout.logFile('etcd'),
        stateDir: layout.root,
        registry,
      });
      stopOnFailure.push(() => etcd.stop());

      const apiServerUrl = `https://127.0.0.1:${apiServerPort}`;
      const client = new KubeRestClient(apiServerUrl, {
        caCertificateFile: pki.caCertificate,
        certificateFile: pki.adminCertificate,
        keyFile: pki.adminKey,
      });
      const apiServer = new KubeApiServer({
        binary: binaries.kubeApiServer,
        etcdUrl: etcd.clientUrl,
        securePort: apiServerPort,
        pki,
        serviceClusterIpRange: loopbackBlock.serviceClusterIpRange,
        logFile: layout.logFile('kube-apiserver'),
        stateDir: layout.root,
        certDir: join(layout.pki, 'apiserver-generated'),
        registry,
        client,
      });
      log(`starting kube-apiserver on ${apiServerUrl} (ClusterIPs from ${loopbackBlock.serviceClusterIpRange})`);
      stopOnFailure.push(() => apiServer.stop());
      await apiServer.start();
      writeAdminKubeconfig(layout.kubeconfig, apiServerUrl, pki);

      log('starting kube-controller-manager');
      const controllerManagerOptions: KubeControllerManagerOptions = {
        binary: binaries.kubeControllerManager,
        kubeconfig: layout.kubeconfig,
        pki,
        logFile: layout.logFile('kube-controller-manager'),
        stateDir: layout.root,
        registry,
      };
      const controllerManager = await startKubeControllerManager(controllerManagerOptions);
      return new ControlPlane(pki, layout.kubeconfig, client, etcd, apiServer, controllerManager, controllerManagerOptions);
    } catch (error) {
      for (const stop of stopOnFailure.reverse()) await stop().catch(() => undefined);
      throw error;
    }
  }

  /**
   * Stops and restarts kube-apiserver on the same port: every open watch breaks. Resolves when ready again.
   * The controller-manager is restarted with it: after an outage its informers sit in relist back-off (up to 30 s),
   * during which new namespaces get no default ServiceAccount and later tests would wait on the harness, not on
   * the code under test. The controller-manager is scaffolding here; only the apiserver restart is the fault.
   */
  async restartApiServer(): Promise<void> {
    await this.apiServer.restart();
    await this.controllerManager.stop(5000);
    this.controllerManager = await startKubeControllerManager(this.controllerManagerOptions);
  }

  /** Compacts etcd to its current revision: resuming a watch from an older resourceVersion then yields 410 Gone. */
  compactEtcd(): Promise<number> {
    return this.etcd.compactToCurrentRevision();
  }

  /** Stops the controller-manager, the apiserver and etcd (in that order) and deletes etcd's data. */
  async stop(): Promise<void> {
    await this.controllerManager.stop(5000);
    await this.apiServer.stop();
    await this.etcd.stop();
    this.client.close();
  }
}

/** etcd's data lives on tmpfs when there is one, named after the state directory so parallel clusters differ. */
export function etcdDataDirFor(stateDir: string): string {
  const suffix = createHash('sha256').update(stateDir).digest('hex').slice(0, 12);
  return existsSync('/dev/shm') ? `/dev/shm/redkite-etcd-${suffix}` : join(stateDir, 'etcd');
}

async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await findFreePort());
  return [...ports];
}
