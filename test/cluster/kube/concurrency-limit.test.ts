import { ConcurrencyLimit } from './concurrency-limit';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe('ConcurrencyLimit', () => {
  it('runs at most maxInFlight tasks at once and starts the others in arrival order', async () => {
    const limit = new ConcurrencyLimit(2);
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = gates.map((gate, index) => limit.run(async () => {
      started.push(index);
      await gate.promise;
    }));
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(limit.queued).toBe(2);
    gates[1].resolve();
    await runs[1];
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    gates.forEach((gate) => gate.resolve());
    await Promise.all(runs);
    expect(started).toEqual([0, 1, 2, 3]);
    expect(limit.running).toBe(0);
  });

  it('frees the slot of a task that fails', async () => {
    const limit = new ConcurrencyLimit(1);
    await expect(limit.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(limit.run(() => Promise.resolve('next'))).resolves.toBe('next');
  });
});
