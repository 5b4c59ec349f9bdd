/**
 * At most `maxInFlight` tasks at a time; the others wait in arrival order. Keeps one kind of request (bindings,
 * status writes) from occupying every connection to the apiserver while another kind waits behind it.
 */
export class ConcurrencyLimit {
  private inFlight = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly maxInFlight: number) {
    if (!Number.isInteger(maxInFlight) || maxInFlight < 1) throw new RangeError(`maxInFlight must be a positive integer, got ${maxInFlight}`);
  }

  /** Tasks running now. */
  get running(): number { return this.inFlight; }
  /** Tasks waiting for a slot. */
  get queued(): number { return this.waiting.length; }

  /** Runs `task` once a slot is free; settles as the task does. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.inFlight >= this.maxInFlight) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.inFlight++;
    try {
      return await task();
    } finally {
      // The slot passes straight to the next waiter, so a newcomer cannot overtake the queue.
      const next = this.waiting.shift();
      if (next) next();
      else this.inFlight--;
    }
  }
}
