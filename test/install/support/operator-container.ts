import { ChildProcess, execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/**
 * Where a pod finds its service-account credentials (client-node's in-cluster config reads them here, with
 * KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT).
 */
export const SERVICE_ACCOUNT_MOUNT = '/var/run/secrets/kubernetes.io/serviceaccount';

/** What a pod of the operator Deployment would get from the kubelet. */
export interface PodEnvironment {
  readonly token: string;
  readonly caCertificate: string;
  readonly namespace: string;
  readonly apiserverHost: string;
  readonly apiserverPort: string;
  readonly podName: string;
}

/**
 * Podman options that work on this kind of machine: runc (crun fails on hybrid cgroups v1), cgroupfs without
 * systemd, file events (no journald), and rlimits below the hard limits (root here lacks CAP_SYS_RESOURCE, and
 * podman's defaults raise them).
 */
const PODMAN_GLOBAL_OPTIONS = ['--runtime', 'runc', '--cgroup-manager', 'cgroupfs', '--events-backend', 'file'];
const CONTAINER_LIMITS = ['--ulimit', 'nofile=4096:4096', '--ulimit', 'nproc=4096:4096'];

/** Runs the image once with `args` (read-only, uid 65532, no network) and resolves its stdout. */
export async function runOperatorImageOnce(image: string, args: readonly string[]): Promise<string> {
  const { stdout } = await execFileAsync('podman', [
    ...PODMAN_GLOBAL_OPTIONS, 'run', '--rm', '--pull', 'never', ...CONTAINER_LIMITS,
    '--network', 'none', '--read-only', '--read-only-tmpfs=false', '--user', '65532:65532', '--cap-drop', 'ALL',
    image, ...args,
  ]);
  return stdout;
}

/**
 * The operator image run as the Deployment runs it: read-only root file system with no writable /tmp, uid 65532,
 * no capabilities, the service account mounted where a pod has it, and the host's loopback network (the test
 * cluster's apiserver and Redis pods listen there).
 */
export class OperatorContainer {
  private child: ChildProcess | undefined;
  private exit: Promise<number | null> | undefined;
  readonly logFile: string;
  private readonly secretsDir: string;
  readonly name: string;

  constructor(
    private readonly image: string,
    private readonly environment: PodEnvironment,
  ) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'redkite-operator-container-'));
    this.logFile = path.join(dir, 'operator.log');
    this.secretsDir = path.join(dir, 'serviceaccount');
    this.name = `redkite-e2e-${path.basename(dir).split('-').pop()!.toLowerCase()}`;
  }

  /** The arguments podman runs the container with (without the command line of the controller). */
  podmanArguments(): string[] {
    return [
      ...PODMAN_GLOBAL_OPTIONS,
      'run', '--rm', '--name', this.name, '--pull', 'never',
      ...CONTAINER_LIMITS,
      '--network', 'host',
      '--read-only', '--read-only-tmpfs=false',
      '--user', '65532:65532',
      '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges',
      '--volume', `${this.secretsDir}:${SERVICE_ACCOUNT_MOUNT}:ro`,
      '--env', `KUBERNETES_SERVICE_HOST=${this.environment.apiserverHost}`,
      '--env', `KUBERNETES_SERVICE_PORT=${this.environment.apiserverPort}`,
      '--env', `POD_NAME=${this.environment.podName}`,
      '--env', `POD_NAMESPACE=${this.environment.namespace}`,
      this.image,
    ];
  }

  start(controllerArguments: readonly string[]): void {
    fs.mkdirSync(this.secretsDir, { mode: 0o755 });
    // World-readable like the kubelet's projected volume with the restricted profile's fsGroup: uid 65532 reads it.
    fs.writeFileSync(path.join(this.secretsDir, 'token'), this.environment.token, { mode: 0o644 });
    fs.writeFileSync(path.join(this.secretsDir, 'ca.crt'), this.environment.caCertificate, { mode: 0o644 });
    fs.writeFileSync(path.join(this.secretsDir, 'namespace'), this.environment.namespace, { mode: 0o644 });
    const log = fs.openSync(this.logFile, 'a');
    const child = spawn('podman', [...this.podmanArguments(), ...controllerArguments], { stdio: ['ignore', log, log] });
    fs.closeSync(log);
    this.child = child;
    this.exit = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  /** Sends SIGTERM to the container's init (as the kubelet does) and resolves the container's exit code. */
  async terminate(timeoutMilliseconds: number): Promise<number | null> {
    if (!this.exit) throw new Error('the container was not started');
    await execFileAsync('podman', [...PODMAN_GLOBAL_OPTIONS, 'kill', '--signal', 'TERM', this.name]);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMilliseconds)));
    const outcome = await Promise.race([this.exit, timedOut]);
    clearTimeout(timer);
    if (outcome === 'timeout') throw new Error(`the operator container did not stop within ${timeoutMilliseconds} ms of SIGTERM:\n${this.tail()}`);
    this.child = undefined;
    return outcome;
  }

  /** Removes the container whatever state it is in (afterAll). */
  async remove(): Promise<void> {
    if (this.child) {
      await execFileAsync('podman', [...PODMAN_GLOBAL_OPTIONS, 'rm', '--force', '--time', '0', this.name]).catch(() => undefined);
      await this.exit;
      this.child = undefined;
    }
    fs.rmSync(path.dirname(this.secretsDir), { recursive: true, force: true });
  }

  tail(lines = 40): string {
    return fs.existsSync(this.logFile) ? fs.readFileSync(this.logFile, 'utf8').split('\n').slice(-lines).join('\n') : '';
  }
}
