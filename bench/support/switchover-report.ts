import { median, percentile } from './statistics';

/**
 * The write pause of each switchover: the longest gap between two consecutive acknowledged writes in its window,
 * which runs from the last acknowledgement at or before the switchover started to the last one before the next
 * switchover started (or `endedAt` for the last). Between switchovers writes flow every fraction of a
 * millisecond, so the longest gap is the pause the switchover caused, as a client saw it — including the time the
 * client needed to find the new primary and for a replica to attach to it (WAIT 1).
 *
 * @param acknowledgedAt acknowledgement times, ascending.
 * @param startedAt start times of the switchovers, ascending, on the same clock.
 * @returns one gap per switchover; NaN when no write was acknowledged after it started.
 */
export function longestGapPerSwitchover(acknowledgedAt: readonly number[], startedAt: readonly number[], endedAt: number): number[] {
  return startedAt.map((start, index) => {
    const windowEnd = startedAt[index + 1] ?? endedAt;
    let position = lastIndexAtOrBefore(acknowledgedAt, start);
    if (position < 0) position = 0;
    let longest = Number.NaN;
    for (let next = position + 1; next < acknowledgedAt.length && acknowledgedAt[next]! < windowEnd; next++) {
      const gap = acknowledgedAt[next]! - acknowledgedAt[next - 1]!;
      if (!(gap <= longest)) longest = gap;
    }
    return longest;
  });
}

/**
 * Where lost writes sit: for each switchover that lost any, how many and when they were acknowledged relative to
 * its start, e.g. "#3: 812 lost, acknowledged +105..+1290 ms". Lost writes before the first switchover are listed
 * as "#0".
 */
export function describeLostWrites(lostAcknowledgedAt: readonly number[], startedAt: readonly number[]): string[] {
  const bySwitchover = new Map<number, number[]>();
  for (const time of lostAcknowledgedAt) {
    const switchover = lastIndexAtOrBefore(startedAt, time) + 1;
    const offsets = bySwitchover.get(switchover) ?? [];
    offsets.push(switchover === 0 ? time : time - startedAt[switchover - 1]!);
    bySwitchover.set(switchover, offsets);
  }
  return [...bySwitchover].map(([switchover, offsets]) => {
    const range = `+${Math.round(Math.min(...offsets))}..+${Math.round(Math.max(...offsets))} ms`;
    return `#${switchover}: ${offsets.length} lost, acknowledged ${range}`;
  });
}

/** Index of the last value ≤ `time` in ascending `values`, -1 when none (binary search). */
function lastIndexAtOrBefore(values: readonly number[], time: number): number {
  let low = 0;
  let high = values.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (values[middle]! <= time) {
      found = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return found;
}

/** What one method's run measured. */
export interface SwitchoverRun {
  readonly title: string;
  readonly switchovers: number;
  /** Switchovers that reported failure or did not complete within the settle deadline. */
  readonly failed: number;
  /** One per switchover that completed, in ms. */
  readonly pausesMilliseconds: readonly number[];
  readonly acknowledgedWrites: number;
  readonly lostAcknowledgedWrites: number;
  readonly unacknowledgedWrites: number;
  readonly writeErrors: number;
}

function milliseconds(value: number): string {
  return Number.isNaN(value) ? 'n/a' : `${value.toFixed(1)} ms`;
}

/** The side-by-side table of the runs. */
export function formatSwitchoverTable(runs: readonly SwitchoverRun[]): string[] {
  const rows: Array<[string, (run: SwitchoverRun) => string]> = [
    ['switchovers (failed)', (run) => `${run.switchovers} (${run.failed})`],
    ['write pause p50', (run) => milliseconds(median(run.pausesMilliseconds))],
    ['write pause p99', (run) => milliseconds(percentile(run.pausesMilliseconds, 99))],
    ['write pause max', (run) => milliseconds(run.pausesMilliseconds.length === 0 ? Number.NaN : Math.max(...run.pausesMilliseconds))],
    ['acknowledged writes', (run) => String(run.acknowledgedWrites)],
    ['acknowledged writes lost', (run) => String(run.lostAcknowledgedWrites)],
    ['unacknowledged writes (WAIT saw 0 replicas)', (run) => String(run.unacknowledgedWrites)],
    ['write errors (client side)', (run) => String(run.writeErrors)],
  ];
  const header = ['', ...runs.map((run) => run.title)];
  const body = rows.map(([label, value]) => [label, ...runs.map(value)]);
  const widths = header.map((_, index) => Math.max(...[header, ...body].map((row) => row[index]!.length)));
  const line = (row: readonly string[]): string =>
    `| ${row.map((cell, index) => (index === 0 ? cell.padEnd(widths[index]!) : cell.padStart(widths[index]!))).join(' | ')} |`;
  const separator = `|${widths.map((width, index) => (index === 0 ? '-'.repeat(width + 2) : `${'-'.repeat(width + 1)}:`)).join('|')}|`;
  return [line(header), separator, ...body.map(line)];
}
