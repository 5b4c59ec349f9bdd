import type { RequestTally } from './convergence-counting-proxy';
import type { Observation } from './convergence-observer';
import type { BaselineResult, RedkiteResult } from './convergence-phases';
import { NO_PROCESS_IMAGE } from './convergence-workloads';

/** The figures of one size. */
export interface SizeResult {
  readonly baseline: BaselineResult;
  readonly redkite: RedkiteResult;
}

function seconds(value: number | undefined, progress?: string): string {
  return value === undefined ? `not reached (${progress ?? '?'})` : `${value.toFixed(1)} s`;
}

function ratio(redkite: number | undefined, baseline: number | undefined): string {
  return redkite === undefined || baseline === undefined || baseline === 0 ? '–' : `${(redkite / baseline).toFixed(2)}×`;
}

function row(cells: readonly string[], widths: readonly number[]): string {
  return cells.map((cell, index) => cell.padEnd(widths[index]!)).join('  ').trimEnd();
}

function table(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((cells) => cells[column]!.length)));
  return rows.map((cells) => `  ${row(cells, widths)}`);
}

function breakdown(tally: RequestTally, indent: string): string[] {
  return tally.writesByKind.map(([kind, count]) => `${indent}${String(count).padStart(6)}  ${kind}`);
}

function observed(observation: Observation): string {
  return seconds(observation.seconds, observation.progress);
}

/** The report of one size: a comparison table, then the controller's writes and memory. */
export function formatSize({ baseline, redkite }: SizeResult): string[] {
  const size = redkite.size;
  const real = redkite.backing === 'real';
  const lines: string[] = [];
  lines.push(real
    ? `N = ${size} RedisClusters — REAL pods: one redis-server process per pod, readiness by the node agent's exec probe`
    : `N = ${size} RedisClusters — FALLBACK: pods WITHOUT a process (image ${NO_PROCESS_IMAGE}); nothing can be Ready`);
  const rows: string[][] = [['', 'redkite', 'plain client', 'redkite / plain']];
  rows.push([
    'objects in place (redkite: children exist + status.observedGeneration; plain: all applies answered)',
    observed(redkite.observed), seconds(baseline.applySeconds), ratio(redkite.observed.seconds, baseline.applySeconds),
  ]);
  rows.push(real
    ? ['Ready (redkite: every RedisCluster Ready=True; plain: every pod Ready)', observed(redkite.pods), observed(baseline.pods), ratio(redkite.pods.seconds, baseline.pods.seconds)]
    : ['pods bound with a container status (no process)', observed(redkite.pods), observed(baseline.pods), ratio(redkite.pods.seconds, baseline.pods.seconds)]);
  lines.push(...table(rows));
  lines.push(`  (clocks start at the first create/apply; redkite's ${size} creates took ${redkite.createSeconds.toFixed(1)} s, the plain client's ${baseline.objectCount} applies ${baseline.applySeconds.toFixed(1)} s; ` +
    `manifests synthesized beforehand in ${baseline.synthesisSeconds.toFixed(2)} s)`);
  const writes = redkite.convergenceWrites;
  const perReconcile = redkite.convergenceReconciles > 0 ? (writes.writes / redkite.convergenceReconciles).toFixed(2) : '–';
  lines.push(`  controller writes during convergence: ${writes.writes} = ${(writes.writes / size).toFixed(2)} per cluster, ${perReconcile} per reconcile ` +
    `(${redkite.convergenceReconciles} reconciles); ${writes.failedWrites} answered with an error; reads ${writes.reads}`);
  lines.push(...breakdown(writes, '    '));
  if (redkite.startupWrites.writes > 0) {
    lines.push(`  controller writes at startup, before any RedisCluster: ${redkite.startupWrites.writes}`);
    lines.push(...breakdown(redkite.startupWrites, '    '));
  }
  const steady = redkite.steadyWrites;
  lines.push(`  ${real ? 'steady state' : 'steady state of unhealthy clusters (pods cannot start)'}: ${steady.writes} writes in ${redkite.steadyWindowSeconds.toFixed(0)} s ` +
    `(target 0) over ${redkite.steadyReconciles} reconciles; reads ${steady.reads}`);
  lines.push(...breakdown(steady, '    '));
  lines.push(`  controller RSS after the window: ${redkite.memory.currentMebibytes.toFixed(0)} MiB (peak ${redkite.memory.peakMebibytes.toFixed(0)} MiB); ` +
    `plain-client process peak RSS: ${baseline.peakRssMebibytes.toFixed(0)} MiB (same runtime: node + tsx)`);
  lines.push(`  controller log: ${redkite.logFile}`);
  return lines;
}
