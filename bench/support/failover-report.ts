import { median, percentile } from './statistics';

/** The figures every failover trial reports, redkite's and Sentinel's alike. */
export interface FailoverTrial {
  readonly trial: number;
  readonly killedPrimary: string;
  readonly newPrimary: string;
  /** SIGKILL of the primary to the first acknowledged write sent after it. */
  readonly failoverMilliseconds: number;
  readonly acknowledgedWrites: number;
  readonly lostAcknowledgedWrites: number;
  readonly writeErrors: number;
}

/** Summary of one setup's trials. */
export interface FailoverSummary {
  readonly trials: number;
  readonly failedTrials: number;
  readonly minMilliseconds: number;
  readonly medianMilliseconds: number;
  readonly p95Milliseconds: number;
  readonly maxMilliseconds: number;
  readonly acknowledgedWrites: number;
  readonly lostAcknowledgedWrites: number;
  readonly writeErrors: number;
}

export function summarize(trials: readonly FailoverTrial[], failedTrials: number): FailoverSummary {
  const times = trials.map((trial) => trial.failoverMilliseconds);
  return {
    trials: trials.length,
    failedTrials,
    minMilliseconds: times.length === 0 ? Number.NaN : Math.min(...times),
    medianMilliseconds: median(times),
    p95Milliseconds: percentile(times, 95),
    maxMilliseconds: times.length === 0 ? Number.NaN : Math.max(...times),
    acknowledgedWrites: trials.reduce((sum, trial) => sum + trial.acknowledgedWrites, 0),
    lostAcknowledgedWrites: trials.reduce((sum, trial) => sum + trial.lostAcknowledgedWrites, 0),
    writeErrors: trials.reduce((sum, trial) => sum + trial.writeErrors, 0),
  };
}

/** One line per trial. */
export function formatTrial(setup: string, trial: FailoverTrial, extra = ''): string {
  return (
    `${setup} trial ${String(trial.trial).padStart(2)}: ${trial.killedPrimary} -> ${trial.newPrimary}, ` +
    `first acknowledged write after the kill at ${trial.failoverMilliseconds} ms; ` +
    `${trial.lostAcknowledgedWrites}/${trial.acknowledgedWrites} acknowledged writes lost, ${trial.writeErrors} write errors${extra}`
  );
}

function milliseconds(value: number): string {
  return Number.isNaN(value) ? 'n/a' : `${Math.round(value)} ms`;
}

/** A column of the summary table. */
export interface SummaryColumn {
  readonly title: string;
  readonly summary: FailoverSummary;
}

/** The side-by-side table. */
export function formatSummaryTable(columns: readonly SummaryColumn[]): string[] {
  const rows: Array<[string, (summary: FailoverSummary) => string]> = [
    ['trials (failed)', (s) => `${s.trials} (${s.failedTrials})`],
    ['failover min', (s) => milliseconds(s.minMilliseconds)],
    ['failover median', (s) => milliseconds(s.medianMilliseconds)],
    ['failover p95', (s) => milliseconds(s.p95Milliseconds)],
    ['failover max', (s) => milliseconds(s.maxMilliseconds)],
    ['acknowledged writes', (s) => String(s.acknowledgedWrites)],
    ['acknowledged writes lost', (s) => String(s.lostAcknowledgedWrites)],
    ['write errors (client side)', (s) => String(s.writeErrors)],
  ];
  const header = ['', ...columns.map((column) => column.title)];
  const body = rows.map(([label, value]) => [label, ...columns.map((column) => value(column.summary))]);
  const widths = header.map((_, index) => Math.max(...[header, ...body].map((row) => row[index]!.length)));
  const line = (row: readonly string[]): string =>
    `| ${row.map((cell, index) => (index === 0 ? cell.padEnd(widths[index]!) : cell.padStart(widths[index]!))).join(' | ')} |`;
  const separator = `|${widths.map((width, index) => (index === 0 ? '-'.repeat(width + 2) : `${'-'.repeat(width + 1)}:`)).join('|')}|`;
  return [line(header), separator, ...body.map(line)];
}

/** "Sentinel median / redkite median = a / b = r". */
export function formatRatio(label: string, sentinel: FailoverSummary, redkite: FailoverSummary): string {
  const ratio = sentinel.medianMilliseconds / redkite.medianMilliseconds;
  const p95Ratio = sentinel.p95Milliseconds / redkite.p95Milliseconds;
  return (
    `Sentinel median / redkite median (${label}) = ${sentinel.medianMilliseconds.toFixed(0)} / ${redkite.medianMilliseconds.toFixed(0)} ms = ` +
    `${ratio.toFixed(2)} (${ratio > 1 ? 'redkite faster' : 'redkite NOT faster'}); p95 ratio ${p95Ratio.toFixed(2)}`
  );
}
