import { KUBELET_RESTART_BACKOFF, REDUCED_KUBELET_RESTART_BACKOFF, RestartBackoff, validateRestartBackoff } from './restart-backoff';

const delays = (backoff: RestartBackoff, count: number, ranForMilliseconds = 10): number[] =>
  Array.from({ length: count }, () => backoff.next(ranForMilliseconds).milliseconds);

describe('RestartBackoff', () => {
  it('restarts like a default kubelet: after the 1 s relist, then 10 s doubling up to 5 min', () => {
    expect(delays(new RestartBackoff(KUBELET_RESTART_BACKOFF), 8)).toEqual([1000, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000]);
  });

  it('restarts like a kubelet with the reduced back-off: 1 s, 1 s, 2 s, 4 s, … up to 60 s', () => {
    expect(delays(new RestartBackoff(REDUCED_KUBELET_RESTART_BACKOFF), 9)).toEqual([1000, 1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000]);
  });

  it('reports back-off only from the second restart on (the first waits for the relist alone)', () => {
    const backoff = new RestartBackoff(KUBELET_RESTART_BACKOFF);
    expect([backoff.next(10).backingOff, backoff.next(10).backingOff]).toEqual([false, true]);
  });

  it('never restarts sooner than the minimum delay, even with no back-off at all', () => {
    expect(delays(new RestartBackoff({ minimumDelayMilliseconds: 250, baseMilliseconds: 0, maxMilliseconds: 0 }), 3)).toEqual([250, 250, 250]);
  });

  it('forgets the back-off after a run longer than twice the cap, as the kubelet does after 10 minutes', () => {
    const backoff = new RestartBackoff(KUBELET_RESTART_BACKOFF);
    delays(backoff, 3);
    expect(backoff.next(600_000).milliseconds).toBe(40_000);
    expect(backoff.next(600_001).milliseconds).toBe(1000);
  });

  it('rejects negative or inverted settings with the field named', () => {
    expect(() => validateRestartBackoff({ minimumDelayMilliseconds: -1, baseMilliseconds: 1, maxMilliseconds: 2 })).toThrow(/minimumDelayMilliseconds/);
    expect(() => validateRestartBackoff({ minimumDelayMilliseconds: 0, baseMilliseconds: 5, maxMilliseconds: 2 })).toThrow(/below baseMilliseconds/);
  });
});
