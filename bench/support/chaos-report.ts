import type { ScheduleResult } from './chaos-run';

/** The figures of a whole run, summed over its schedules. */
export interface ChaosTotals {
  readonly injected: Readonly<Record<string, number>>;
  readonly injectedCount: number;
  readonly skippedCount: number;
  readonly acknowledged: number;
  /** Lost acknowledged writes over the schedules that could be read back (`lost n/a`: no read-back). */
  readonly lost: number;
  /** Of `lost`, writes acknowledged with WAIT (the invariant) and only by min-replicas-to-write (Redis' own bound). */
  readonly lostWaitAcknowledged: number;
  readonly lostMinReplicasAcknowledged: number;
  readonly maxWritablePrimaries: number;
  readonly longestNoWritablePrimaryMilliseconds: number;
  /** Schedules with a problem (loss, two writable primaries, no recovery, bench error). */
  readonly failedSchedules: number;
  /** Schedules left waiting for a human decision, as I1 requires (no read-back possible). */
  readonly heldForHumanSchedules: number;
}

export function totalsOf(results: readonly ScheduleResult[]): ChaosTotals {
  const injected: Record<string, number> = {};
  for (const result of results) {
    for (const [kind, count] of Object.entries(result.injected)) injected[kind] = (injected[kind] ?? 0) + count;
  }
  return {
    injected,
    injectedCount: Object.values(injected).reduce((sum, count) => sum + count, 0),
    skippedCount: results.reduce((sum, result) => sum + result.skipped.length, 0),
    acknowledged: results.reduce((sum, result) => sum + result.acknowledged, 0),
    lost: results.reduce((sum, result) => sum + (result.history?.lost ?? 0), 0),
    lostWaitAcknowledged: lostBy(results, 'wait'),
    lostMinReplicasAcknowledged: lostBy(results, 'min-replicas'),
    maxWritablePrimaries: Math.max(0, ...results.map((result) => result.roles?.maxWritablePrimaries ?? 0)),
    longestNoWritablePrimaryMilliseconds: Math.max(0, ...results.map((result) => result.roles?.longestNoWritablePrimaryMilliseconds ?? 0)),
    failedSchedules: results.filter((result) => result.problems.length > 0).length,
    heldForHumanSchedules: results.filter((result) => result.heldForHuman !== undefined).length,
  };
}

function lostBy(results: readonly ScheduleResult[], acknowledgement: 'wait' | 'min-replicas'): number {
  return results.reduce((sum, result) => sum + (result.history?.writers ?? []).filter((writer) => writer.acknowledgement === acknowledgement).reduce((lost, writer) => lost + writer.lost, 0), 0);
}

/** `kill-primary 2, freeze-replica 1` in the table's kind order. */
function describeInjected(injected: Readonly<Record<string, number>>, kindOrder: readonly string[]): string {
  const parts = kindOrder.filter((kind) => injected[kind] !== undefined).map((kind) => `${kind} ${injected[kind]}`);
  return parts.length > 0 ? parts.join(', ') : 'none';
}

/** The report printed at the end of a run (pure). */
export function formatChaosReport(results: readonly ScheduleResult[], kindOrder: readonly string[]): string[] {
  const lines: string[] = [];
  const row = (cells: readonly string[]): string =>
    [cells[0]!.padEnd(9), cells[1]!.padStart(13), cells[2]!.padStart(6), cells[3]!.padStart(13), cells[4]!.padStart(20), '  ', cells[5]!].join(' ');
  lines.push(row(['schedule', 'acknowledged', 'lost', 'max writable', 'no writable (ms)', 'faults injected']));
  for (const result of results) {
    lines.push(
      row([
        String(result.index),
        String(result.acknowledged),
        result.history ? String(result.history.lost) : 'n/a',
        result.roles ? String(result.roles.maxWritablePrimaries) : 'n/a',
        result.roles ? String(result.roles.longestNoWritablePrimaryMilliseconds) : 'n/a',
        describeInjected(result.injected, kindOrder) + (result.skipped.length > 0 ? `; ${result.skipped.length} skipped` : ''),
      ]),
    );
  }
  const totals = totalsOf(results);
  lines.push(
    row([
      'total',
      String(totals.acknowledged),
      String(totals.lost),
      String(totals.maxWritablePrimaries),
      String(totals.longestNoWritablePrimaryMilliseconds),
      `${totals.injectedCount} (${describeInjected(totals.injected, kindOrder)})${totals.skippedCount > 0 ? `; ${totals.skippedCount} skipped` : ''}`,
    ]),
  );
  lines.push('("max writable": most members that ROLE/INFO showed writable at once; "no writable": longest window with none.)');
  const lostByWriter = new Map<string, number>();
  for (const writer of results.flatMap((result) => result.history?.writers ?? [])) {
    const role = writer.name.replace(/^chaos-\d+-\d+-/, '');
    lostByWriter.set(role, (lostByWriter.get(role) ?? 0) + writer.lost);
  }
  if (lostByWriter.size > 0) lines.push(`lost by writer: ${[...lostByWriter].map(([role, lost]) => `${role} ${lost}`).join(', ')}`);
  for (const result of results) {
    if (result.history) {
      const writers = result.history.writers.map(
        (writer) => `${writer.name.replace(/^chaos-\d+-\d+-/, '')} ${writer.acknowledged}/${writer.lost}/${writer.unacknowledged}/${writer.failed}`,
      );
      lines.push(`schedule ${result.index} writers (acknowledged/lost/unacknowledged/failed): ${writers.join(', ')}`);
    }
    for (const skipped of result.skipped) lines.push(`schedule ${result.index} skipped ${skipped.kind}: ${skipped.reason}`);
  }
  for (const result of results.filter((candidate) => candidate.heldForHuman !== undefined)) {
    lines.push(`schedule ${result.index}: no automatic recovery, the controller waits for a human decision (I1): ${result.heldForHuman}`);
  }
  for (const result of results.filter((candidate) => candidate.problems.length > 0)) {
    lines.push('');
    lines.push(`schedule ${result.index} (${result.namespace ?? 'no namespace'}) FAILED; controller log ${result.controllerLogFile ?? 'none'}:`);
    for (const problem of result.problems) lines.push(...problem.split('\n').map((line) => `  ${line}`));
  }
  return lines;
}
