import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, readSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { locateControlPlaneBinaries, locateRedisBinaries } from './binaries';
import { etcdDataDirFor } from './control-plane/control-plane';
import { isDaemonProcessAlive, liveDaemon, readClusterEndpoints } from './daemon-record';
import { findClusterFirewallRules, removeClusterFirewallRules } from './network/firewall';
import { KUBELET_RESTART_BACKOFF, validateRestartBackoff } from './node-agent/restart-backoff';
import { PROCESS_TAG_VARIABLE, signalQuietly, stopTaggedProcesses, type TaggedProcess } from './process/process-tag';
import { StateDirLayout, type ClusterEndpoints } from './state-dir';

const REPOSITORY_ROOT = resolve(__dirname, '..', '..');
const DAEMON_SCRIPT = join(__dirname, 'daemon.ts');

/** How to launch a cluster daemon. */
export interface LaunchOptions {
  readonly stateDir: string;
  /**
   * Tie the daemon's life to this process (a pipe on its stdin): used by the test setup so that a killed test
   * run cannot leave a cluster behind. `cluster:up` leaves it off so the cluster outlives the command.
   * @default false
   */
  readonly exitWithParent?: boolean;
  /**
   * Earliest restart of an exited container (the kubelet's 1 s PLEG relist).
   * @default 1000 (KUBELET_RESTART_BACKOFF)
   */
  readonly restartMinimumDelayMilliseconds?: number;
  /**
   * Crash-loop back-off of the node agent: the second restart waits this long, each later one twice as long.
   * `REDUCED_KUBELET_RESTART_BACKOFF` (node-agent/restart-backoff.ts) holds the "1 s, doubling" of KEP-4603.
   * @default 10_000 (the kubelet's)
   */
  readonly restartBackoffBaseMilliseconds?: number;
  /** Cap of the back-off; a container that ran twice this long starts over. @default 300_000 (the kubelet's) */
  readonly restartBackoffMaxMilliseconds?: number;
  /** @default 120_000 (binaries are built before this clock starts) */
  readonly readyTimeoutMilliseconds?: number;
  /** Progress lines (binary builds, startup steps). @default ignored */
  readonly onProgress?: (line: string) => void;
}

/** The cluster did not come up; the message carries the tail of the daemon's log. */
export class ClusterStartError extends Error {
  override readonly name = 'ClusterStartError';
}

/**
 * Starts a cluster daemon for the state directory in the background and resolves its endpoints once it is
 * ready. If a ready daemon already runs there, its endpoints are returned as they are (idempotent `up`).
 * Binaries are located (and built if needed) here, in the foreground, so build progress and errors surface
 * directly; a missing binary rejects with instructions (BinariesUnavailableError).
 */
export async function launchCluster(options: LaunchOptions): Promise<ClusterEndpoints> {
  // Bad settings fail here, in the caller, rather than in a daemon log.
  validateRestartBackoff({
    minimumDelayMilliseconds: options.restartMinimumDelayMilliseconds ?? KUBELET_RESTART_BACKOFF.minimumDelayMilliseconds,
    baseMilliseconds: options.restartBackoffBaseMilliseconds ?? KUBELET_RESTART_BACKOFF.baseMilliseconds,
    maxMilliseconds: options.restartBackoffMaxMilliseconds ?? KUBELET_RESTART_BACKOFF.maxMilliseconds,
  });
  const layout = new StateDirLayout(options.stateDir);
  const progress = options.onProgress ?? (() => undefined);
  const running = liveDaemon(layout);
  const published = readClusterEndpoints(layout);
  if (running && published?.daemonPid === running.pid) return published;
  if (running) await stopCluster(options.stateDir);

  const binaries = await locateControlPlaneBinaries(progress);
  locateRedisBinaries();
  mkdirSync(layout.logs, { recursive: true });
  rmSync(layout.readyFile, { force: true });
  const logFile = layout.logFile('daemon');
  const logFd = openSync(logFile, 'a');
  const args = ['--import', 'tsx', DAEMON_SCRIPT, '--state-dir', layout.root];
  if (options.exitWithParent) args.push('--exit-with-parent');
  if (options.restartMinimumDelayMilliseconds !== undefined) args.push('--restart-minimum-delay-ms', String(options.restartMinimumDelayMilliseconds));
  if (options.restartBackoffBaseMilliseconds !== undefined) args.push('--restart-backoff-base-ms', String(options.restartBackoffBaseMilliseconds));
  if (options.restartBackoffMaxMilliseconds !== undefined) args.push('--restart-backoff-max-ms', String(options.restartBackoffMaxMilliseconds));
  const child = spawn(process.execPath, args, {
    cwd: REPOSITORY_ROOT,
    detached: true,
    stdio: [options.exitWithParent ? 'pipe' : 'ignore', logFd, logFd],
    env: {
      ...process.env,
      [PROCESS_TAG_VARIABLE]: layout.root,
      TEST_ASSET_ETCD: binaries.etcd,
      TEST_ASSET_KUBE_APISERVER: binaries.kubeApiServer,
      TEST_ASSET_KUBE_CONTROLLER_MANAGER: binaries.kubeControllerManager,
    },
  });
  closeSync(logFd);
  // Neither the child nor its stdin pipe may keep this process alive; the pipe only has to exist.
  child.unref();
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  child.stdin?.on('error', () => undefined);
  let exited: string | undefined;
  child.once('exit', (code, signal) => (exited = `the cluster daemon exited (${signal ?? `code ${code}`})`));

  const deadline = Date.now() + (options.readyTimeoutMilliseconds ?? 120_000);
  let logOffset = statSync(logFile).size;
  for (;;) {
    const endpoints = readClusterEndpoints(layout);
    if (endpoints && endpoints.daemonPid === child.pid) return endpoints;
    logOffset = forwardNewLogLines(logFile, logOffset, progress);
    if (exited || Date.now() > deadline) {
      if (!exited) signalQuietly(child.pid!, 'SIGTERM');
      throw new ClusterStartError(`${exited ?? 'the cluster did not become ready in time'}; last lines of ${logFile}:\n${tail(logFile, 30)}`);
    }
    await new Promise((resolveSleep) => setTimeout(resolveSleep, 100));
  }
}

/** The result of stopping a cluster. */
export interface StopResult {
  /** Whether a daemon was running. */
  readonly daemonWasRunning: boolean;
  /** Processes of the cluster that were still alive after the daemon stopped and had to be killed. */
  readonly leftovers: TaggedProcess[];
  /** iptables rules of the cluster (partitions, controller source addresses) still installed after the daemon stopped, and then removed. */
  readonly leftoverFirewallRules: string[];
}

/**
 * Stops the cluster of a state directory: SIGTERM to the daemon (which stops everything it started), SIGKILL
 * after the timeout, then a sweep that kills any process still tagged with the state directory.
 */
export async function stopCluster(stateDir: string, timeoutMilliseconds = 30_000): Promise<StopResult> {
  const layout = new StateDirLayout(stateDir);
  const daemon = liveDaemon(layout);
  // Read before the daemon removes it: the block names the cluster's iptables chains.
  const blockOctet = loopbackBlockOctet(readClusterEndpoints(layout));
  if (daemon) {
    signalQuietly(daemon.pid, 'SIGTERM');
    const deadline = Date.now() + timeoutMilliseconds;
    // Wait for the process itself: it removes its record a moment before it exits.
    while (isDaemonProcessAlive(daemon) && Date.now() < deadline) await new Promise((resolveSleep) => setTimeout(resolveSleep, 50));
    if (isDaemonProcessAlive(daemon)) signalQuietly(-daemon.pid, 'SIGKILL');
  }
  const leftovers = await stopTaggedProcesses(layout.root, 3000);
  const leftoverFirewallRules = blockOctet === undefined ? [] : await findClusterFirewallRules(blockOctet);
  if (leftoverFirewallRules.length > 0) await removeClusterFirewallRules(blockOctet!);
  // The daemon removes etcd's data when it stops cleanly; not when it had to be killed.
  rmSync(etcdDataDirFor(layout.root), { recursive: true, force: true });
  rmSync(layout.readyFile, { force: true });
  return { daemonWasRunning: daemon !== undefined, leftovers, leftoverFirewallRules };
}

function loopbackBlockOctet(endpoints: ClusterEndpoints | undefined): number | undefined {
  const match = /^127\.(\d+)\.0\.0\/16$/.exec(endpoints?.loopbackBlock ?? '');
  return match ? Number(match[1]) : undefined;
}

function forwardNewLogLines(file: string, offset: number, progress: (line: string) => void): number {
  const size = statSync(file).size;
  if (size <= offset) return offset;
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(size - offset);
    readSync(fd, buffer, 0, buffer.length, offset);
    for (const line of buffer.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        const parsed = JSON.parse(line) as { msg?: string };
        if (parsed.msg) progress(parsed.msg);
      } catch {
        progress(line);
      }
    }
  } finally {
    closeSync(fd);
  }
  return size;
}

function tail(file: string, lines: number): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
