/** One fault as the test or bench injected it. */
export interface FaultWindow {
  /** What was done: `freeze-primary`, `kill-controller`, `split brain`, ... */
  readonly kind: string;
  /** To what: a pod name, an address, `controller`. */
  readonly target: string;
  readonly startedAt: number;
  /** When it was healed; equal to `startedAt` for an instant fault (a kill); undefined while it lasts. */
  readonly endedAt: number | undefined;
}

/** The faults of one test or schedule, so a failed history check can say which fault a lost write fell into. */
export class FaultTimeline {
  private readonly recorded: Array<{ kind: string; target: string; startedAt: number; endedAt: number | undefined }> = [];

  get faults(): readonly FaultWindow[] {
    return this.recorded;
  }

  /**
   * A fault that lasts until the returned function is called (a freeze until its thaw, a partition until healed).
   * `startedAt`: when the injection was requested, if earlier than now (the fault may act before the request returns).
   */
  begin(kind: string, target: string, startedAt = Date.now()): () => void {
    const fault = { kind, target, startedAt, endedAt: undefined as number | undefined };
    this.recorded.push(fault);
    return () => {
      fault.endedAt ??= Date.now();
    };
  }

  /** A fault that happens at one instant (a SIGKILL, a pod deletion), by default now. */
  instant(kind: string, target: string, at = Date.now()): void {
    this.recorded.push({ kind, target, startedAt: at, endedAt: at });
  }
}

/** Faults active at `time` (a lasting fault without an end is active until `openEndsAt`). */
export function faultsAt(faults: readonly FaultWindow[], time: number, openEndsAt = Number.POSITIVE_INFINITY): FaultWindow[] {
  return faults.filter((fault) => fault.startedAt <= time && time <= (fault.endedAt ?? openEndsAt));
}

/** The last fault that started at or before `time`, if any. */
export function faultBefore(faults: readonly FaultWindow[], time: number): FaultWindow | undefined {
  return faults.filter((fault) => fault.startedAt <= time).sort((left, right) => right.startedAt - left.startedAt)[0];
}
