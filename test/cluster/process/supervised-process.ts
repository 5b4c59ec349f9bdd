import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type { ProcessRegistry } from './process-registry';
import { PROCESS_TAG_VARIABLE, signalQuietly } from './process-tag';

const WATCHDOG_SCRIPT = join(__dirname, 'watchdog.sh');

/** How a supervised process ended. */
export interface ProcessExit {
  /** Exit code, or `128 + signal number` when a signal ended it (the shell and kubelet convention). */
  readonly exitCode: number;
  readonly signal: NodeJS.Signals | null;
}

/** What to run and where its output goes. */
export interface SupervisedProcessOptions {
  /** A short name for logs and the process registry. */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  /** The complete environment (nothing is inherited implicitly). */
  readonly env: Readonly<Record<string, string>>;
  /** @default the harness's working directory */
  readonly cwd?: string;
  /** Standard output and error are appended to this file. */
  readonly logFile: string;
  /** The cluster's absolute state directory: tags the process so leftovers can always be found. */
  readonly stateDir: string;
  /** How long the watchdog waits after SIGTERM before SIGKILL when the harness dies. */
  readonly watchdogGraceSeconds: number;
  /** @default not recorded */
  readonly registry?: ProcessRegistry;
}

const SIGNAL_NUMBERS: Partial<Record<NodeJS.Signals, number>> = {
  SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGABRT: 6, SIGKILL: 9, SIGSEGV: 11, SIGPIPE: 13, SIGTERM: 15,
};

/**
 * A child process in its own process group (so a terminal's Ctrl-C does not hit it and stopping it stops its
 * children too) that cannot outlive the harness: it is started through `watchdog.sh`, which kills the group
 * when the harness's end of a pipe closes.
 */
export class SupervisedProcess {
  /** Settles when the process has exited (never rejects). */
  readonly exited: Promise<ProcessExit>;
  private running = true;

  private constructor(
    readonly name: string,
    readonly pid: number,
    private readonly child: ChildProcess,
    exited: Promise<ProcessExit>,
  ) {
    this.exited = exited.then((exit) => {
      this.running = false;
      return exit;
    });
  }

  /** Starts a process; rejects if it cannot be spawned at all. */
  static async start(options: SupervisedProcessOptions): Promise<SupervisedProcess> {
    const logFd = openSync(options.logFile, 'a');
    let child: ChildProcess;
    try {
      child = spawn('bash', [WATCHDOG_SCRIPT, String(options.watchdogGraceSeconds), options.command, ...options.args], {
        cwd: options.cwd,
        env: { ...options.env, [PROCESS_TAG_VARIABLE]: options.stateDir },
        detached: true,
        stdio: ['pipe', logFd, logFd],
      });
    } finally {
      closeSync(logFd);
    }
    // The pipe only signals our liveness; a write error just means the watchdog already went away.
    child.stdin?.on('error', () => undefined);
    const spawned = new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (error) => reject(new Error(`cannot start ${options.name} (${options.command})`, { cause: error })));
    });
    const exited = new Promise<ProcessExit>((resolve) => {
      child.once('exit', (code, signal) => {
        // Closing our end tells the watchdog to clean up whatever the process left in its group.
        child.stdin?.end();
        if (child.pid !== undefined) options.registry?.remove(child.pid);
        resolve({ exitCode: code ?? 128 + (signal ? (SIGNAL_NUMBERS[signal] ?? 0) : 0), signal });
      });
    });
    await spawned;
    const pid = child.pid!;
    options.registry?.add(options.name, pid);
    return new SupervisedProcess(options.name, pid, child, exited);
  }

  /** Whether the process has not exited yet. */
  isRunning(): boolean {
    return this.running;
  }

  /** Sends a signal to the process itself (not its group), e.g. SIGKILL/SIGSTOP/SIGCONT for chaos tests. */
  signal(signal: NodeJS.Signals): void {
    if (this.running) signalQuietly(this.pid, signal);
  }

  /**
   * Stops the whole process group: SIGTERM (and SIGCONT, so a frozen process receives it), then SIGKILL once
   * the grace period is over. Resolves with the exit of the main process.
   */
  async stop(graceMilliseconds: number): Promise<ProcessExit> {
    if (this.running) {
      signalQuietly(-this.pid, 'SIGTERM');
      signalQuietly(-this.pid, 'SIGCONT');
      const timer = setTimeout(() => signalQuietly(-this.pid, 'SIGKILL'), graceMilliseconds);
      await this.exited;
      clearTimeout(timer);
    }
    // Children the main process left behind (e.g. a Redis background save) go with the group.
    signalQuietly(-this.pid, 'SIGKILL');
    this.child.stdin?.end();
    return this.exited;
  }
}
