import type { ChaosRandom } from './chaos-random';

/** One fault of a schedule, drawn before the schedule runs so a seed replays the same plan. */
export interface ScheduledFault {
  /** Milliseconds after the schedule's start. */
  readonly atMilliseconds: number;
  /** A name from the fault table (bench/support/chaos-faults.ts). */
  readonly kind: string;
  /** How long a lasting fault (freeze, controller down, partition) lasts before it is healed; 0 for an instant one. */
  readonly holdMilliseconds: number;
  /** In [0, 1): picks the target among the candidates present when the fault is injected (e.g. which replica). */
  readonly choice: number;
}

/** Parameters of {@link generateSchedule}. */
export interface ScheduleParameters {
  readonly faults: number;
  readonly durationMilliseconds: number;
  /** The fault kinds to draw from, each with whether it lasts. */
  readonly kinds: ReadonlyArray<{ readonly name: string; readonly lasting: boolean }>;
  /** @default 500 */
  readonly minimumHoldMilliseconds?: number;
  /** @default 8000 */
  readonly maximumHoldMilliseconds?: number;
  /**
   * Faults start within this share of the duration, so the last ones still run a while before the final healing.
   * @default 0.8
   */
  readonly injectionShare?: number;
}

/**
 * Draws one schedule (pure apart from the random source): uniform fault kinds, uniform start times over the first
 * `injectionShare` of the duration (sorted), uniform hold times for lasting faults, cut at the schedule's end.
 */
export function generateSchedule(random: ChaosRandom, parameters: ScheduleParameters): ScheduledFault[] {
  if (!Number.isInteger(parameters.faults) || parameters.faults < 1) throw new Error(`faults per schedule must be a positive integer, got ${parameters.faults}`);
  if (parameters.kinds.length === 0) throw new Error('no fault kinds to draw from');
  const minimumHold = parameters.minimumHoldMilliseconds ?? 500;
  const maximumHold = parameters.maximumHoldMilliseconds ?? 8000;
  const injectionWindow = Math.floor(parameters.durationMilliseconds * (parameters.injectionShare ?? 0.8));
  const faults: ScheduledFault[] = [];
  for (let index = 0; index < parameters.faults; index++) {
    const kind = random.pick(parameters.kinds);
    const atMilliseconds = random.integer(0, injectionWindow);
    const hold = random.integer(minimumHold, maximumHold);
    faults.push({
      atMilliseconds,
      kind: kind.name,
      holdMilliseconds: kind.lasting ? Math.min(hold, parameters.durationMilliseconds - atMilliseconds) : 0,
      choice: random.fraction(),
    });
  }
  return faults.sort((left, right) => left.atMilliseconds - right.atMilliseconds);
}

/** `+12.3 s freeze-primary (hold 3.2 s)`, one line per fault. */
export function describeSchedule(schedule: readonly ScheduledFault[]): string[] {
  return schedule.map((fault) => {
    const hold = fault.holdMilliseconds > 0 ? ` (hold ${(fault.holdMilliseconds / 1000).toFixed(1)} s)` : '';
    return `+${(fault.atMilliseconds / 1000).toFixed(1).padStart(5)} s ${fault.kind}${hold}`;
  });
}
