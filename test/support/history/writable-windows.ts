/**
 * Pure reasoning over ROLE samples: when was a member writable, how many were writable at once, and how long was
 * no member writable. No I/O, so the rules are unit-tested on hand-made samples.
 *
 * One clock (the sampling process's `Date.now()`) orders every sample. A sample sent at `sentAt` and answered at
 * `receivedAt` tells the member's state at one unknown instant of `[sentAt, receivedAt]`. Two rules follow:
 * - *Definitely writable* (used to count simultaneous writable primaries, so a clean switchover can never be
 *   reported as a split brain): between two consecutive writable answers of one incarnation (same `master_replid`)
 *   the member was writable from the first answer's `receivedAt` to the second's `sentAt`. A single writable
 *   answer proves no span, so a split brain shorter than one sampling period can go unseen.
 * - *Possibly writable* (used for the longest window without a writable primary, so that window is never
 *   overstated): a run of writable answers covers `[first sentAt, next answer's sentAt]`, or up to the end of
 *   sampling for the last run. An unanswered sample (timeout, refused connection) counts as not writable: a frozen
 *   or dead server accepts no write.
 */

/** What one sample concluded about a member. */
export type MemberState = 'writable' | 'not-writable' | 'unanswered';

/** One sample of one member. */
export interface MemberSample {
  /** When the probe was sent (epoch ms). */
  readonly sentAt: number;
  /** When the answer arrived, or when the sampler gave up (epoch ms). */
  readonly receivedAt: number;
  readonly state: MemberState;
  /** `master_replid` of a writable answer: a different one means the member was demoted and promoted in between. */
  readonly replicationId?: string;
  /** Why, in a few words: `master, 1 of 1 good replicas`, `replica of 10.0.0.5:6379`, `timed out after 200 ms`. */
  readonly detail: string;
}

/** A member's samples in the order they were sent. */
export interface MemberTimeline {
  /** The member's name (a pod name) and, for messages, its address(es). */
  readonly member: string;
  readonly samples: readonly MemberSample[];
}

/** A half-open span `[from, to)` of epoch milliseconds. */
export interface TimeWindow {
  readonly from: number;
  readonly to: number;
}

/** The largest number of members that were definitely writable at once, and the first window where it held. */
export interface SimultaneousWritable {
  readonly count: number;
  /** Undefined when no member was ever definitely writable. */
  readonly window: (TimeWindow & { readonly members: readonly string[] }) | undefined;
}

/** Spans in which the member was writable beyond doubt (see the file comment). */
export function definitelyWritableWindows(samples: readonly MemberSample[]): TimeWindow[] {
  const windows: TimeWindow[] = [];
  let runStart: MemberSample | undefined;
  let previous: MemberSample | undefined;
  const closeRun = (): void => {
    if (runStart !== undefined && previous !== undefined && runStart !== previous && runStart.receivedAt < previous.sentAt) {
      windows.push({ from: runStart.receivedAt, to: previous.sentAt });
    }
  };
  for (const sample of samples) {
    const continuesRun = sample.state === 'writable' && runStart !== undefined && sample.replicationId === runStart.replicationId;
    if (!continuesRun) {
      closeRun();
      runStart = sample.state === 'writable' ? sample : undefined;
    }
    previous = sample;
  }
  closeRun();
  return windows;
}

/** Spans in which the member may have been writable (see the file comment); `endAt` closes a run still open. */
export function possiblyWritableWindows(samples: readonly MemberSample[], endAt: number): TimeWindow[] {
  const windows: TimeWindow[] = [];
  let runFrom: number | undefined;
  for (const sample of samples) {
    if (sample.state === 'writable') {
      runFrom ??= sample.sentAt;
    } else if (runFrom !== undefined) {
      windows.push({ from: runFrom, to: sample.sentAt });
      runFrom = undefined;
    }
  }
  if (runFrom !== undefined) {
    windows.push({ from: runFrom, to: Math.max(runFrom, endAt) });
  }
  return windows;
}

/** The most members definitely writable at one instant (touching windows do not overlap). */
export function maximumSimultaneouslyWritable(timelines: readonly MemberTimeline[]): SimultaneousWritable {
  const edges = timelines.flatMap(({ member, samples }) =>
    definitelyWritableWindows(samples).flatMap((window) => [
      { at: window.from, delta: 1, member },
      { at: window.to, delta: -1, member },
    ]),
  );
  // Ends before starts at the same instant: [a, b) and [b, c) never overlap.
  edges.sort((left, right) => left.at - right.at || left.delta - right.delta);
  const writable = new Map<string, number>();
  let best: SimultaneousWritable = { count: 0, window: undefined };
  let bestOpen = false;
  for (const edge of edges) {
    if (bestOpen && best.window !== undefined) {
      best = { count: best.count, window: { ...best.window, to: edge.at } };
      bestOpen = false;
    }
    writable.set(edge.member, (writable.get(edge.member) ?? 0) + edge.delta);
    const members = [...writable].filter(([, windows]) => windows > 0).map(([member]) => member);
    if (members.length > best.count) {
      best = { count: members.length, window: { from: edge.at, to: edge.at, members: members.sort() } };
      bestOpen = true;
    }
  }
  return best;
}

/** The longest span of `[from, to)` that no window covers, or undefined when they cover all of it. */
export function longestUncoveredWindow(windows: readonly TimeWindow[], from: number, to: number): TimeWindow | undefined {
  const sorted = [...windows].sort((left, right) => left.from - right.from);
  let longest: TimeWindow | undefined;
  let coveredUntil = from;
  const consider = (gap: TimeWindow): void => {
    if (gap.to > gap.from && (longest === undefined || gap.to - gap.from > longest.to - longest.from)) {
      longest = gap;
    }
  };
  for (const window of sorted) {
    if (window.from > coveredUntil) {
      consider({ from: coveredUntil, to: Math.min(window.from, to) });
    }
    coveredUntil = Math.max(coveredUntil, window.to);
    if (coveredUntil >= to) {
      break;
    }
  }
  consider({ from: coveredUntil, to });
  return longest;
}

/** The longest window in which no member was possibly writable, over `[from, to)`. */
export function longestWithoutWritable(timelines: readonly MemberTimeline[], from: number, to: number): TimeWindow | undefined {
  return longestUncoveredWindow(
    timelines.flatMap(({ samples }) => possiblyWritableWindows(samples, to)),
    from,
    to,
  );
}
