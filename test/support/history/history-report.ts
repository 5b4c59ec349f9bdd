import { faultBefore, faultsAt, type FaultWindow } from './fault-timeline';
import type { HistoryResult, LostWrite } from './history-checker';
import type { TimeWindow } from './writable-windows';

/** What a history may show and still pass {@link assertHistory}. */
export interface HistoryLimits {
  /** Acknowledged writes that may be lost. @default 0 */
  readonly lost?: number;
  /** @default 1 */
  readonly maxWritablePrimaries?: number;
  /** @default - not checked */
  readonly longestNoWritablePrimaryMilliseconds?: number;
}

/** A history that broke one of its limits; the message says which keys and which fault windows. */
export class HistoryViolationError extends Error {
  override readonly name = 'HistoryViolationError';
  constructor(
    readonly result: HistoryResult,
    readonly violations: readonly string[],
  ) {
    super(['history check failed:', ...violations, ...formatHistory(result).map((line) => `  ${line}`)].join('\n'));
  }
}

/** Throws a {@link HistoryViolationError} when the result breaks `limits`. */
export function assertHistory(result: HistoryResult, limits: HistoryLimits = {}): void {
  const violations = historyViolations(result, limits);
  if (violations.length > 0) {
    throw new HistoryViolationError(result, violations);
  }
}

/** One readable paragraph per broken limit (pure). */
export function historyViolations(result: HistoryResult, limits: HistoryLimits = {}): string[] {
  const violations: string[] = [];
  const allowedLost = limits.lost ?? 0;
  if (result.lost > allowedLost) {
    const shown = result.lostWrites.map((write) => `    ${describeLostWrite(result, write)}`);
    const more = result.lost > result.lostWrites.length ? [`    … and ${result.lost - result.lostWrites.length} more`] : [];
    violations.push(
      [`- ${result.lost} of ${result.acknowledged} acknowledged writes lost (allowed ${allowedLost}), read back from the final primary ${result.finalPrimary}:`, ...shown, ...more].join('\n'),
    );
  }
  const allowedPrimaries = limits.maxWritablePrimaries ?? 1;
  if (result.maxWritablePrimaries > allowedPrimaries && result.maxWritablePrimariesWindow !== undefined) {
    const window = result.maxWritablePrimariesWindow;
    const members = window.members.map((member) => describeMember(result, member)).join(', ');
    violations.push(
      `- ${result.maxWritablePrimaries} writable primaries at once (allowed ${allowedPrimaries}) ${describeWindow(result, window)}: ${members}; ${faultContext(result, window.from)}`,
    );
  }
  const allowedGap = limits.longestNoWritablePrimaryMilliseconds;
  if (allowedGap !== undefined && result.longestNoWritablePrimaryMilliseconds > allowedGap && result.longestNoWritablePrimaryWindow !== undefined) {
    violations.push(
      `- no writable primary for ${result.longestNoWritablePrimaryMilliseconds} ms (allowed ${allowedGap} ms) ` +
        `${describeWindow(result, result.longestNoWritablePrimaryWindow)}; ${faultContext(result, result.longestNoWritablePrimaryWindow.from)}`,
    );
  }
  return violations;
}

/** The figures of a history, one line each (pure). */
export function formatHistory(result: HistoryResult): string[] {
  const lines = [
    `acknowledged ${result.acknowledged}, lost ${result.lost}, max writable primaries ${result.maxWritablePrimaries}, ` +
      `longest without a writable primary ${result.longestNoWritablePrimaryMilliseconds} ms` +
      (result.longestNoWritablePrimaryWindow ? ` ${describeWindow(result, result.longestNoWritablePrimaryWindow)}` : ''),
  ];
  for (const writer of result.writers) {
    lines.push(
      `writer ${writer.name} (${writer.acknowledgement}): ${writer.acknowledged} acknowledged (${writer.lost} lost), ${writer.unacknowledged} unacknowledged, ` +
        `${writer.failed} failed, ${writer.connections} connections`,
    );
  }
  const sampled = Object.entries(result.samplesPerMember)
    .map(([member, samples]) => `${describeMember(result, member)} ${samples.taken} (${samples.unanswered} unanswered)`)
    .join(', ');
  lines.push(`ROLE samples: ${sampled || 'none'}`);
  for (const fault of result.faults) lines.push(`fault ${describeFault(result, fault)}`);
  return lines;
}

function describeLostWrite(result: HistoryResult, write: LostWrite): string {
  const acknowledgement = write.acknowledgement === 'wait' ? ` (WAIT reported ${write.replicas})` : ` (min-replicas-to-write ${write.replicas})`;
  const found = write.found === null ? 'missing' : `holds "${write.found}" instead of "${write.value}"`;
  return `${write.key} acknowledged ${relative(result, write.acknowledgedAt)} by ${write.server}${acknowledgement}: ${found}; ${faultContext(result, write.acknowledgedAt)}`;
}

function faultContext(result: HistoryResult, time: number): string {
  const active = faultsAt(result.faults, time, result.stoppedAt);
  if (active.length > 0) return `during ${active.map((fault) => describeFault(result, fault)).join(' and ')}`;
  const before = faultBefore(result.faults, time);
  return before === undefined ? 'before any fault' : `after ${describeFault(result, before)}`;
}

function describeFault(result: HistoryResult, fault: FaultWindow): string {
  const when =
    fault.endedAt === fault.startedAt
      ? `at ${relative(result, fault.startedAt)}`
      : `${relative(result, fault.startedAt)} … ${fault.endedAt === undefined ? 'end' : relative(result, fault.endedAt)}`;
  return `${fault.kind} ${fault.target} (${when})`;
}

function describeWindow(result: HistoryResult, window: TimeWindow): string {
  return `from ${relative(result, window.from)} to ${relative(result, window.to)}`;
}

function describeMember(result: HistoryResult, member: string): string {
  const address = result.memberAddresses[member];
  return address === undefined || address === member ? member : `${member} (${address})`;
}

/** Seconds since the history started, e.g. `+12.345 s`. */
function relative(result: HistoryResult, time: number): string {
  return `+${((time - result.startedAt) / 1000).toFixed(3)} s`;
}
