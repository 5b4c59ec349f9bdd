import { RestartBackoff } from './restart-backoff';

describe('RestartBackoff', () => {
  it('restarts at once the first time, then doubles from the base up to the cap', () => {
    const backoff = new RestartBackoff({ baseMilliseconds: 1000, maxMilliseconds: 4000 });
    expect([0, 0, 0, 0, 0].map(() => backoff.nextDelayMilliseconds(10))).toEqual([0, 1000, 2000, 4000, 4000]);
  });

  it('forgets the back-off after a long healthy run', () => {
    const backoff = new RestartBackoff({ baseMilliseconds: 1000, maxMilliseconds: 4000 });
    backoff.nextDelayMilliseconds(10);
    backoff.nextDelayMilliseconds(10);
    expect(backoff.nextDelayMilliseconds(8000)).toBe(0);
  });
});
