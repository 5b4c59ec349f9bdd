import { WorkQueue } from '../../../../operator/runtime/workqueue/work-queue';
import { ItemExponentialFailureRateLimiter } from '../../../../operator/runtime/workqueue/rate-limiter';

async function drainQueue(queue: WorkQueue): Promise<string[]> {
  const taken: string[] = [];
  while (queue.length > 0) {
    const item = await queue.get();
    if (item === undefined) break;
    taken.push(item);
    queue.done(item);
  }
  return taken;
}

describe('WorkQueue', () => {
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  it('queues a key once however many times it is added', async () => {
    const queue = new WorkQueue();
    for (let index = 0; index < 10; index += 1) queue.add('ns/a');
    queue.add('ns/b');
    expect(queue.length).toBe(2);
    expect(await drainQueue(queue)).toEqual(['ns/a', 'ns/b']);
  });

  it('never hands out a key that a worker still holds', async () => {
    const queue = new WorkQueue();
    queue.add('ns/a');
    const first = await queue.get();
    queue.add('ns/a');
    expect(queue.length).toBe(0);
    let second: string | undefined;
    void queue.get().then((item) => (second = item));
    await Promise.resolve();
    expect(second).toBeUndefined();
    queue.done(first!);
    await Promise.resolve();
    expect(second).toBe('ns/a');
  });

  it('reprocesses a key added while it was processed exactly once afterwards', async () => {
    const queue = new WorkQueue();
    queue.add('ns/a');
    const item = (await queue.get())!;
    queue.add('ns/a');
    queue.add('ns/a');
    queue.done(item);
    expect(queue.length).toBe(1);
    expect(await drainQueue(queue)).toEqual(['ns/a']);
  });

  it('wakes a waiting worker when a key arrives', async () => {
    const queue = new WorkQueue();
    const waiting = queue.get();
    queue.add('ns/a');
    await expect(waiting).resolves.toBe('ns/a');
  });

  it('adds a key after the requested delay', async () => {
    const queue = new WorkQueue();
    queue.addAfter('ns/a', 1000);
    await jest.advanceTimersByTimeAsync(999);
    expect(queue.length).toBe(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(queue.length).toBe(1);
  });

  it('keeps the earliest deadline when a delayed key is added again', async () => {
    const queue = new WorkQueue();
    queue.addAfter('ns/a', 5000);
    queue.addAfter('ns/a', 100);
    queue.addAfter('ns/a', 3000);
    await jest.advanceTimersByTimeAsync(100);
    expect(await drainQueue(queue)).toEqual(['ns/a']);
    await jest.advanceTimersByTimeAsync(10_000);
    expect(queue.length).toBe(0);
  });

  it('delays rate-limited adds by the per-key backoff and resets it on forget', async () => {
    const queue = new WorkQueue({ rateLimiter: new ItemExponentialFailureRateLimiter() });
    queue.addRateLimited('ns/a');
    await jest.advanceTimersByTimeAsync(4);
    expect(queue.length).toBe(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(await drainQueue(queue)).toEqual(['ns/a']);
    queue.addRateLimited('ns/a');
    await jest.advanceTimersByTimeAsync(9);
    expect(queue.length).toBe(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(queue.length).toBe(1);
    expect(queue.retries('ns/a')).toBe(2);
    queue.forget('ns/a');
    expect(queue.retries('ns/a')).toBe(0);
  });

  it('hands out nothing after shutdown, even keys still queued', async () => {
    const queue = new WorkQueue();
    queue.add('ns/a');
    const waitingOnEmpty = new WorkQueue().get();
    queue.shutDown();
    await expect(queue.get()).resolves.toBeUndefined();
    queue.add('ns/b');
    expect(queue.length).toBe(1);
    void waitingOnEmpty;
  });

  it('releases waiting workers on shutdown', async () => {
    const queue = new WorkQueue();
    const waiting = queue.get();
    queue.shutDown();
    await expect(waiting).resolves.toBeUndefined();
  });

  it('drops delayed adds on shutdown', async () => {
    const queue = new WorkQueue();
    queue.addAfter('ns/a', 100);
    queue.shutDown();
    await jest.advanceTimersByTimeAsync(1000);
    expect(queue.length).toBe(0);
  });

  it('drain resolves once the in-flight keys are done', async () => {
    const queue = new WorkQueue();
    queue.add('ns/a');
    queue.add('ns/b');
    const a = (await queue.get())!;
    const b = (await queue.get())!;
    queue.shutDown();
    let drained = false;
    void queue.drain().then(() => (drained = true));
    queue.done(a);
    await Promise.resolve();
    expect(drained).toBe(false);
    queue.done(b);
    await Promise.resolve();
    expect(drained).toBe(true);
  });

  it('reports adds, depth, retries and durations to its metrics recorder', async () => {
    const recorded = { added: 0, retried: 0, depths: [] as number[], queued: [] as number[], work: [] as number[] };
    const queue = new WorkQueue({
      rateLimiter: new ItemExponentialFailureRateLimiter(),
      metrics: {
        added: () => (recorded.added += 1),
        retried: () => (recorded.retried += 1),
        depthChanged: (depth) => recorded.depths.push(depth),
        started: (seconds) => recorded.queued.push(seconds),
        finished: (seconds) => recorded.work.push(seconds),
      },
    });
    queue.add('ns/a');
    queue.add('ns/a');
    await jest.advanceTimersByTimeAsync(2000);
    const item = (await queue.get())!;
    await jest.advanceTimersByTimeAsync(500);
    queue.done(item);
    queue.addRateLimited('ns/a');
    expect(recorded).toEqual({ added: 2, retried: 1, depths: [1, 0], queued: [2], work: [0.5] });
  });
});
