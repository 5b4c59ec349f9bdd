/**
 * The two clocks the reconciler takes: the wall clock (timestamps written for humans) and the monotonic clock
 * (failure detection, back-offs; invariant I7). They move only when a test moves them.
 */
export class FakeClocks {
  private wallMilliseconds = Date.parse('2030-01-01T00:00:00Z');
  private monotonicMilliseconds = 1_000_000;

  readonly now = (): number => this.wallMilliseconds;
  readonly monotonicNow = (): number => this.monotonicMilliseconds;

  /** Real time passes: both clocks move. */
  advance(milliseconds: number): void {
    this.wallMilliseconds += milliseconds;
    this.monotonicMilliseconds += milliseconds;
  }

  /** Someone sets the system time (NTP step, VM resume): only the wall clock jumps. */
  jumpWallClock(milliseconds: number): void {
    this.wallMilliseconds += milliseconds;
  }
}
