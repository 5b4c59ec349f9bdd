import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { ClusterEndpoints, StateDirLayout } from './state-dir';
import { processStartTicks } from './process/process-tag';

/** Identity of a running cluster daemon (`daemon.json`). */
export interface DaemonRecord {
  readonly pid: number;
  readonly startTicks: number | undefined;
}

/** Records the current process as the daemon of this state directory. */
export function writeDaemonRecord(layout: StateDirLayout): void {
  const record: DaemonRecord = { pid: process.pid, startTicks: processStartTicks(process.pid) };
  writeFileSync(layout.daemonFile, JSON.stringify(record));
}

/** The daemon of this state directory if it is still alive (same PID and kernel start time). */
export function liveDaemon(layout: StateDirLayout): DaemonRecord | undefined {
  if (!existsSync(layout.daemonFile)) return undefined;
  try {
    const record = JSON.parse(readFileSync(layout.daemonFile, 'utf8')) as DaemonRecord;
    return processStartTicks(record.pid) === record.startTicks ? record : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the recorded daemon process still exists (it may have removed its record while exiting). */
export function isDaemonProcessAlive(record: DaemonRecord): boolean {
  return processStartTicks(record.pid) === record.startTicks;
}

/** The endpoints a ready daemon published, if any. */
export function readClusterEndpoints(layout: StateDirLayout): ClusterEndpoints | undefined {
  if (!existsSync(layout.readyFile)) return undefined;
  try {
    return JSON.parse(readFileSync(layout.readyFile, 'utf8')) as ClusterEndpoints;
  } catch {
    return undefined;
  }
}
