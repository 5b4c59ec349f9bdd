import type { ClusterPki } from '../pki';
import type { ProcessRegistry } from '../process/process-registry';
import { SupervisedProcess } from '../process/supervised-process';
import type { KubeRestClient } from '../kube/kube-rest-client';
import { waitUntil } from './wait-until';

/** How to start kube-apiserver. */
export interface KubeApiServerOptions {
  readonly binary: string;
  readonly etcdUrl: string;
  readonly securePort: number;
  readonly pki: ClusterPki;
  /** A loopback range, so that ClusterIPs are addresses the node agent can listen on. */
  readonly serviceClusterIpRange: string;
  readonly logFile: string;
  readonly stateDir: string;
  readonly certDir: string;
  readonly registry: ProcessRegistry;
  /** Used to wait for `/readyz`. */
  readonly client: KubeRestClient;
}

/**
 * kube-apiserver on 127.0.0.1 only, with client-certificate authentication, Node+RBAC authorization and the
 * default admission chain (PodSecurity, ServiceAccount, StorageObjectInUseProtection, ... are on by default).
 * It can be restarted on the same port and certificates, which breaks every watch (a fault tests inject).
 */
export class KubeApiServer {
  private serverProcess: SupervisedProcess | undefined;

  constructor(private readonly options: KubeApiServerOptions) {}

  /** The HTTPS URL clients use. */
  get url(): string {
    return `https://127.0.0.1:${this.options.securePort}`;
  }

  /** Starts the server and waits until `/readyz` answers 200. */
  async start(): Promise<void> {
    const { options } = this;
    const serverProcess = await SupervisedProcess.start({
      name: 'kube-apiserver',
      command: options.binary,
      args: [
        `--etcd-servers=${options.etcdUrl}`,
        '--bind-address=127.0.0.1',
        '--advertise-address=127.0.0.1',
        `--secure-port=${options.securePort}`,
        `--cert-dir=${options.certDir}`,
        `--tls-cert-file=${options.pki.apiServerCertificate}`,
        `--tls-private-key-file=${options.pki.apiServerKey}`,
        `--client-ca-file=${options.pki.caCertificate}`,
        '--authorization-mode=Node,RBAC',
        '--allow-privileged=true',
        `--service-cluster-ip-range=${options.serviceClusterIpRange}`,
        `--service-account-issuer=${this.url}`,
        `--service-account-key-file=${options.pki.serviceAccountPublicKey}`,
        `--service-account-signing-key-file=${options.pki.serviceAccountKey}`,
        // One small machine: the default 400/200 in-flight limits and priority levels only add overhead.
        '--enable-priority-and-fairness=false',
        '--profiling=false',
        '--v=1',
      ],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      logFile: options.logFile,
      stateDir: options.stateDir,
      watchdogGraceSeconds: 5,
      registry: options.registry,
    });
    this.serverProcess = serverProcess;
    await waitUntil('kube-apiserver /readyz', async () => (await options.client.getText('/readyz')).statusCode === 200, {
      timeoutMilliseconds: 90_000,
      intervalMilliseconds: 250,
      abortWhen: () => (serverProcess.isRunning() ? undefined : `kube-apiserver exited; see ${options.logFile}`),
    });
  }

  /**
   * Stops the server: SIGTERM, then SIGKILL after 2 s. Measured: kube-apiserver 1.34 stops serving within
   * milliseconds of SIGTERM but then lingers ~10 s in shutdown; everything is already in etcd by then.
   */
  async stop(): Promise<void> {
    await this.serverProcess?.stop(2000);
    this.serverProcess = undefined;
  }

  /** Stop + start on the same port and certificates: open watches break, clients must reconnect. */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }
}
