import { readdirSync, readFileSync } from 'node:fs';

/**
 * Every process the harness starts carries this environment variable, set to the absolute state directory of
 * its cluster. It survives crashes of the harness itself, so a later run (or `cluster:down`, or a test) can
 * find and stop every process of a cluster by reading `/proc/<pid>/environ`, without trusting PID files.
 */
export const PROCESS_TAG_VARIABLE = 'REDKITE_CLUSTER_STATE_DIR';

/** A live process found in the process table. */
export interface TaggedProcess {
  readonly pid: number;
  readonly commandLine: string;
}

/** Lists the live processes tagged with the given state directory (readable ones only). */
export function findTaggedProcesses(stateDir: string): TaggedProcess[] {
  const wanted = `${PROCESS_TAG_VARIABLE}=${stateDir}`;
  const found: TaggedProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    try {
      const environment = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      if (!environment.includes(wanted)) continue;
      if (isZombie(pid)) continue;
      const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
      found.push({ pid, commandLine });
    } catch {
      // The process exited while we looked, or belongs to another user: neither is ours to stop.
    }
  }
  return found;
}

/** The kernel start time of a process (clock ticks since boot), used to tell a recorded PID from a reused one. */
export function processStartTicks(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces and parentheses: fields after it start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[19]);
  } catch {
    return undefined;
  }
}

function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/**
 * Stops every process tagged with the state directory: SIGTERM (plus SIGCONT for frozen ones), then SIGKILL
 * for whatever is still alive after the grace period. Returns the processes that were found.
 */
export async function stopTaggedProcesses(stateDir: string, graceMilliseconds = 3000): Promise<TaggedProcess[]> {
  const found = findTaggedProcesses(stateDir);
  for (const { pid } of found) signalQuietly(pid, 'SIGTERM');
  for (const { pid } of found) signalQuietly(pid, 'SIGCONT');
  const deadline = Date.now() + graceMilliseconds;
  while (Date.now() < deadline && findTaggedProcesses(stateDir).length > 0) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  for (const { pid } of findTaggedProcesses(stateDir)) signalQuietly(pid, 'SIGKILL');
  return found;
}

/** Sends a signal, ignoring "no such process" (it may have exited in between). */
export function signalQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}
