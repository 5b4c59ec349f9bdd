import { readFileSync, readdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';

/** The 1-minute load average and the number of cores, e.g. "load 2.31 on 2 cores". */
export function describeLoad(): string {
  return `load ${loadavg()[0]!.toFixed(2)} on ${cpus().length} cores`;
}

/**
 * State directories of local-cluster daemons other than `ownStateDir` that are running now (another benchmark or
 * an e2e run sharing the CPU).
 */
export function otherClusterDaemons(ownStateDir: string): string[] {
  const found = new Set<string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (!argv.some((arg) => arg.endsWith('test/cluster/daemon.ts'))) continue;
    const stateDir = argv[argv.indexOf('--state-dir') + 1];
    if (stateDir && stateDir !== ownStateDir) found.add(stateDir);
  }
  return [...found].sort();
}
