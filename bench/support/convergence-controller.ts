import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join, resolve } from 'node:path';
import { findFreePort } from '../../test/cluster/free-port';
import { waitUntil } from '../../test/support/wait-until';

const REPOSITORY_ROOT = resolve(__dirname, '..', '..');

/** Resident memory of a process from /proc/<pid>/status, in MiB. */
export interface ResidentMemory {
  /** VmRSS: now. */
  readonly currentMebibytes: number;
  /** VmHWM: the peak since the process started. */
  readonly peakMebibytes: number;
}

function httpGet(port: number, path: string, timeoutMilliseconds = 5000): Promise<{ statusCode: number; body: string }> {
  return new Promise((resolveGet, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, path, timeout: timeoutMilliseconds }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolveGet({ statusCode: response.statusCode ?? 0, body }));
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error(`GET ${path} timed out`)));
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/**
 * `redkite run` as a real child process (`node bin/redkite.js`, exactly what `npx redkite run` starts), on metrics and
 * probe ports chosen here so the benchmark can read /readyz and /metrics, with its log in a file.
 */
export class ControllerProcess {
  private child: ChildProcess | undefined;
  private metricsPort = 0;
  private probePort = 0;

  constructor(
    private readonly kubeconfig: string,
    private readonly namespace: string,
    readonly logFile: string,
  ) {}

  get pid(): number {
    const pid = this.child?.pid;
    if (pid === undefined) throw new Error('the controller is not running');
    return pid;
  }

  /** Starts the controller and resolves once /readyz answers 200 (its caches are synced). */
  async start(): Promise<void> {
    this.metricsPort = await findFreePort();
    this.probePort = await findFreePort();
    const log = openSync(this.logFile, 'a');
    this.child = spawn(
      process.execPath,
      [join(REPOSITORY_ROOT, 'bin', 'redkite.js'), 'run', '--kubeconfig', this.kubeconfig, '--namespace', this.namespace,
        '--metrics-bind-address', `127.0.0.1:${this.metricsPort}`, '--health-probe-bind-address', `127.0.0.1:${this.probePort}`],
      { cwd: REPOSITORY_ROOT, stdio: ['ignore', log, log] },
    );
    closeSync(log);
    let exited: string | undefined;
    this.child.once('exit', (code, signal) => (exited = `the controller exited (${signal ?? `code ${code}`})`));
    await waitUntil('the controller answers /readyz', async () => {
      if (exited) throw new Error(`${exited}; log:\n${this.tail()}`);
      return (await httpGet(this.probePort, '/readyz')).statusCode === 200;
    }, { timeoutMilliseconds: 60_000, pollIntervalMilliseconds: 200 }).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}; last log lines:\n${this.tail()}`, { cause: error });
    });
  }

  residentMemory(): ResidentMemory {
    const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
    const kibibytes = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
    return { currentMebibytes: kibibytes('VmRSS') / 1024, peakMebibytes: kibibytes('VmHWM') / 1024 };
  }

  /**
   * Sum of a counter over all its label sets (e.g. `controller_runtime_reconcile_total`); NaN when /metrics does not
   * answer within 30 s (a saturated controller): a missing figure, not a failed run.
   */
  async counter(name: string): Promise<number> {
    const answer = await httpGet(this.metricsPort, '/metrics', 30_000).catch(() => undefined);
    if (!answer) return Number.NaN;
    const { body } = answer;
    let sum = 0;
    for (const line of body.split('\n')) {
      if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
    return sum;
  }

  /** SIGTERM, then SIGKILL after 10 s. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
    this.child = undefined;
  }

  tail(lines = 30): string {
    return existsSync(this.logFile) ? readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n') : '(no log)';
  }
}
