import { ConcurrencyLimit } from '../kube/concurrency-limit';
import { KubeApiError } from '../kube/kube-rest-client';
import { PodStatusReporter, type PodStatusReporterOptions } from './pod-status-reporter';

function reporterWith(write: jest.Mock, options: Partial<PodStatusReporterOptions> = {}): { reporter: PodStatusReporter; warn: jest.Mock } {
  const warn = jest.fn();
  const reporter = new PodStatusReporter({
    podKey: 'ns/pod',
    write,
    warn,
    writeLimit: new ConcurrencyLimit(4),
    debounceMilliseconds: 1,
    minIntervalMilliseconds: 1,
    retryBackoff: { initialMilliseconds: 1, maxMilliseconds: 1 },
    ...options,
  });
  return { reporter, warn };
}

async function until(condition: () => boolean): Promise<void> {
  for (let spins = 0; spins < 1000 && !condition(); spins++) await new Promise((resolve) => setTimeout(resolve, 1));
  expect(condition()).toBe(true);
}

describe('PodStatusReporter', () => {
  it('folds a burst of changes into one write', async () => {
    const write = jest.fn(() => Promise.resolve());
    const { reporter } = reporterWith(write, { debounceMilliseconds: 20 });
    for (let change = 0; change < 50; change++) reporter.request();
    await until(() => write.mock.calls.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(write).toHaveBeenCalledTimes(1);
  });

  it('never has two writes of one pod in flight, and writes again for a change made during a write', async () => {
    let inFlight = 0;
    let peak = 0;
    let release!: () => void;
    const write = jest.fn(async () => {
      peak = Math.max(peak, ++inFlight);
      if (write.mock.calls.length === 1) await new Promise<void>((resolve) => (release = resolve));
      inFlight--;
    });
    const { reporter } = reporterWith(write);
    reporter.request();
    await until(() => write.mock.calls.length === 1);
    reporter.request();
    reporter.request();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(write).toHaveBeenCalledTimes(1);
    release();
    await until(() => write.mock.calls.length === 2);
    expect(peak).toBe(1);
  });

  it('logs a failed write and retries it until it lands', async () => {
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const write = jest.fn().mockRejectedValueOnce(reset).mockRejectedValueOnce(reset).mockResolvedValue(undefined);
    const { reporter, warn } = reporterWith(write);
    reporter.request();
    await until(() => write.mock.calls.length === 3);
    expect(warn).toHaveBeenCalledTimes(2);
    expect(warn.mock.calls[1][0]).toMatch(/status of ns\/pod not written \(2 failures in a row\); retrying in \d+ ms/);
    expect(reporter.isStopped).toBe(false);
  });

  it.each([404, 409, 422])('stops without a warning when the write answers %i (the pod is gone or replaced)', async (statusCode) => {
    const write = jest.fn().mockRejectedValue(new KubeApiError('PATCH', '/status', statusCode, 'Whatever', ''));
    const { reporter, warn } = reporterWith(write);
    reporter.request();
    await until(() => reporter.isStopped);
    reporter.request();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(write).toHaveBeenCalledTimes(1);
    expect(warn).not.toHaveBeenCalled();
  });

  it('flush writes at once, after the write in flight', async () => {
    const write = jest.fn(() => Promise.resolve());
    const { reporter } = reporterWith(write, { debounceMilliseconds: 10_000 });
    reporter.request();
    await reporter.flush();
    expect(write).toHaveBeenCalledTimes(1);
    reporter.stop();
  });
});
