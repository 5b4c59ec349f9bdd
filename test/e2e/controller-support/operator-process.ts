import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { k8s } from '../support';
import { controllerProcessOptions, nodeAgent, type ControllerIdentity } from '../support/node-agent-client';
import { installCrd, installOperatorRelease } from './release';

const root = path.join(__dirname, '..', '..', '..');

/**
 * A kubeconfig that authenticates as the operator's ServiceAccount from dist/ with a token from the TokenRequest
 * API, so the controller under test has exactly the RBAC the release grants it. With a harness controller
 * identity it points at the identity's apiserver proxy (same CA), whose watches a test can stall.
 */
export async function operatorKubeconfig(admin: KubeConfig, identity?: ControllerIdentity): Promise<string> {
  const core = admin.makeApiClient(k8s.CoreV1Api);
  const request = await core.createNamespacedServiceAccountToken({
    name: 'redkite-operator',
    namespace: 'redkite-system',
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const cluster = admin.getCurrentCluster()!;
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'e2e', cluster: { server: identity?.apiServerUrl ?? cluster.server, 'certificate-authority-data': caData(cluster) } }],
    users: [{ name: 'redkite-operator', user: { token: request.status!.token } }],
    contexts: [{ name: 'operator', context: { cluster: 'e2e', user: 'redkite-operator' } }],
    'current-context': 'operator',
  };
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'redkite-operator-')), 'kubeconfig');
  fs.writeFileSync(file, JSON.stringify(config), { mode: 0o600 });
  return file;
}

function caData(cluster: { caData?: string; caFile?: string }): string {
  if (cluster.caData) return cluster.caData;
  return fs.readFileSync(cluster.caFile!).toString('base64');
}

/** The controller as a real child process (`redkite run`), with its log kept for failure messages. */
export class OperatorProcess {
  private child: ChildProcess | undefined;
  readonly logFile: string;

  constructor(
    private readonly kubeconfig: string,
    private readonly namespace: string,
    /** More `redkite run` flags, e.g. `--leader-elect`. @default [] */
    private readonly extraArgs: readonly string[] = [],
    /**
     * Run as this harness controller identity: its group id makes the controller's Redis connections leave from
     * `identity.sourceAddress` (so a test can partition a pod from this controller alone). Pair it with
     * `operatorKubeconfig(admin, identity)` for watch stalls. @default none (127.0.0.1, the apiserver directly)
     */
    readonly identity?: ControllerIdentity,
  ) {
    this.logFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'redkite-operator-log-')), 'operator.log');
  }

  start(): void {
    const log = fs.openSync(this.logFile, 'a');
    this.child = spawn(
      process.execPath,
      [path.join(root, 'bin', 'redkite.js'), 'run', '--kubeconfig', this.kubeconfig, '--namespace', this.namespace,
        '--metrics-bind-address', '127.0.0.1:0', '--health-probe-bind-address', '127.0.0.1:0', ...this.extraArgs],
      { cwd: root, stdio: ['ignore', log, log], ...(this.identity ? controllerProcessOptions(this.identity) : {}) },
    );
    fs.closeSync(log);
  }

  /** SIGKILL: no graceful anything, as when a node dies under the controller. */
  kill(): void {
    this.child?.kill('SIGKILL');
    this.child = undefined;
  }

  /** SIGSTOP: the controller stalls mid-work (a VM pause, a long GC), its lease running out meanwhile. */
  freeze(): void {
    this.child?.kill('SIGSTOP');
  }

  /** SIGCONT after {@link freeze}. */
  thaw(): void {
    this.child?.kill('SIGCONT');
  }

  /** Whether the process has exited, and with which code. */
  get exitCode(): number | null {
    return this.child?.exitCode ?? null;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
    this.child = undefined;
  }

  tail(lines = 40): string {
    return fs.existsSync(this.logFile) ? fs.readFileSync(this.logFile, 'utf8').split('\n').slice(-lines).join('\n') : '';
  }
}

/**
 * Installs the CRD and the operator release from dist/, and runs the controller for the test file's namespace
 * (beforeAll / afterAll), under the release's ServiceAccount. With `asControllerIdentity`, the controller runs as
 * a harness controller identity named `<namespace>-operator` (own source address, own apiserver proxy), for
 * `chaos.partitionFromController` and `chaos.stallWatches`; it is unregistered in afterAll.
 */
export function useOperator(admin: KubeConfig, namespace: () => string, options: { asControllerIdentity?: boolean } = {}): { readonly process: OperatorProcess } {
  let operator: OperatorProcess | undefined;
  beforeAll(async () => {
    await installCrd(admin);
    await installOperatorRelease(admin);
    const identity = options.asControllerIdentity ? await nodeAgent().registerController(`${namespace()}-operator`) : undefined;
    operator = new OperatorProcess(await operatorKubeconfig(admin, identity), namespace(), [], identity);
    operator.start();
  });
  afterAll(async () => {
    await operator?.stop();
    if (operator?.identity) await nodeAgent().unregisterController(operator.identity.name);
  });
  return {
    get process(): OperatorProcess {
      if (!operator) throw new Error('the operator runs only inside tests (after beforeAll)');
      return operator;
    },
  };
}
