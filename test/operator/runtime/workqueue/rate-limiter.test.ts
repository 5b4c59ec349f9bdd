import {
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  TokenBucketRateLimiter,
  defaultControllerRateLimiter,
} from '../../../../operator/runtime/workqueue/rate-limiter';

describe('ItemExponentialFailureRateLimiter', () => {
  it('doubles the delay from 5 ms with each failure of the same key', () => {
    const limiter = new ItemExponentialFailureRateLimiter();
    expect([1, 2, 3, 4, 5].map(() => limiter.whenMs('a'))).toEqual([5, 10, 20, 40, 80]);
  });

  it('caps the delay at 1000 seconds', () => {
    const limiter = new ItemExponentialFailureRateLimiter();
    const delays = Array.from({ length: 40 }, () => limiter.whenMs('a'));
    expect(delays[delays.length - 1]).toBe(1_000_000);
    expect(Math.max(...delays)).toBe(1_000_000);
  });

  it('keeps each key on its own schedule', () => {
    const limiter = new ItemExponentialFailureRateLimiter();
    limiter.whenMs('a');
    limiter.whenMs('a');
    expect(limiter.whenMs('b')).toBe(5);
    expect(limiter.retries('a')).toBe(2);
  });

  it('starts again from 5 ms after forget', () => {
    const limiter = new ItemExponentialFailureRateLimiter();
    limiter.whenMs('a');
    limiter.whenMs('a');
    limiter.forget('a');
    expect(limiter.retries('a')).toBe(0);
    expect(limiter.whenMs('a')).toBe(5);
  });
});

describe('TokenBucketRateLimiter', () => {
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  it('lets a burst of 100 through at once, then spaces items at 10 per second', () => {
    const limiter = new TokenBucketRateLimiter();
    const delays = Array.from({ length: 103 }, (_, index) => limiter.whenMs(`key-${index}`));
    expect(delays.slice(0, 100).every((delay) => delay === 0)).toBe(true);
    expect(delays.slice(100)).toEqual([100, 200, 300]);
  });

  it('refills at the configured rate', () => {
    const limiter = new TokenBucketRateLimiter({ queriesPerSecond: 2, burst: 1 });
    expect(limiter.whenMs()).toBe(0);
    expect(limiter.whenMs()).toBe(500);
    jest.advanceTimersByTime(1000);
    // The reserved token was repaid, and one more accrued.
    expect(limiter.whenMs()).toBe(0);
  });
});

describe('MaxOfRateLimiter', () => {
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  it('waits for the slower of per-key backoff and the global bucket', () => {
    const limiter = new MaxOfRateLimiter(new ItemExponentialFailureRateLimiter(), new TokenBucketRateLimiter({ queriesPerSecond: 1, burst: 1 }));
    expect(limiter.whenMs('a')).toBe(5);
    expect(limiter.whenMs('b')).toBe(1000);
  });

  it('is what defaultControllerRateLimiter builds', () => {
    const limiter = defaultControllerRateLimiter();
    expect(limiter.whenMs('a')).toBe(5);
    expect(limiter.whenMs('a')).toBe(10);
    limiter.forget('a');
    expect(limiter.retries('a')).toBe(0);
  });
});
