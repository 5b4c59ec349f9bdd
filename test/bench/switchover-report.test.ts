import { describeLostWrites, longestGapPerSwitchover } from '../../bench/support/switchover-report';

describe('longestGapPerSwitchover', () => {
  it('takes, per switchover, the longest gap from the last acknowledgement before it to the next switchover', () => {
    const acknowledgedAt = [0, 1, 2, 10, 11, 12, 13, 40, 41, 42];
    expect(longestGapPerSwitchover(acknowledgedAt, [2.5, 20], 50)).toEqual([8, 27]);
  });

  it('counts the gap that starts before the switchover began', () => {
    expect(longestGapPerSwitchover([0, 1, 30, 31], [5], 40)).toEqual([29]);
  });

  it('is NaN for a switchover after which nothing was acknowledged', () => {
    expect(longestGapPerSwitchover([0, 1, 2], [5], 40)).toEqual([Number.NaN]);
  });
});

describe('describeLostWrites', () => {
  it('groups lost writes by the switchover they followed, with times relative to its start', () => {
    expect(describeLostWrites([1, 105, 130, 1290], [100, 1000])).toEqual([
      '#0: 1 lost, acknowledged +1..+1 ms',
      '#1: 2 lost, acknowledged +5..+30 ms',
      '#2: 1 lost, acknowledged +290..+290 ms',
    ]);
  });
});
