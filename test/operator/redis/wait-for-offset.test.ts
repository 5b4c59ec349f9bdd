import { RedisUnreachableError } from '../../../operator/redis/errors';
import { waitForOffset } from '../../../operator/redis/wait-for-replica-offset';

const unreachable = new RedisUnreachableError('10.0.0.2:6379', 'Command timed out');

describe('waitForOffset', () => {
  it('returns as soon as a read reaches the offset', async () => {
    const offsets = [10, 20, 30, 40];
    const read = jest.fn(async () => offsets.shift()!);
    await expect(waitForOffset(read, 30, { pollIntervalMilliseconds: 1 })).resolves.toEqual({ reached: true, offset: 30 });
    expect(read).toHaveBeenCalledTimes(3);
  });

  it('retries failed reads and reports the last offset seen and the last error at the deadline', async () => {
    let reads = 0;
    const read = async () => (reads++ === 0 ? 5 : unreachable);
    await expect(waitForOffset(read, 30, { timeoutMilliseconds: 20, pollIntervalMilliseconds: 1 })).resolves.toEqual({
      reached: false,
      offset: 5,
      lastError: unreachable,
    });
  });

  it('gives up at the deadline even while a read is still pending', async () => {
    const started = performance.now();
    const result = await waitForOffset(() => new Promise<number>(() => undefined), 30, { timeoutMilliseconds: 25 });
    expect(result).toEqual({ reached: false, offset: undefined });
    expect(performance.now() - started).toBeLessThan(250);
  });

  it('ends with the error a read throws', async () => {
    const failure = new Error('aborted');
    await expect(waitForOffset(() => Promise.reject(failure), 30)).rejects.toBe(failure);
  });
});
