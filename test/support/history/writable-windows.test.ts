import {
  definitelyWritableWindows,
  longestUncoveredWindow,
  longestWithoutWritable,
  maximumSimultaneouslyWritable,
  possiblyWritableWindows,
  type MemberSample,
  type MemberState,
} from './writable-windows';

/** A sample sent at `sentAt`, answered 2 ms later. */
function sample(sentAt: number, state: MemberState, replicationId = 'history-a'): MemberSample {
  return { sentAt, receivedAt: sentAt + 2, state, replicationId: state === 'writable' ? replicationId : undefined, detail: state };
}

describe('definitelyWritableWindows', () => {
  it('spans from the first writable answer to the sending of the last one of a run', () => {
    expect(definitelyWritableWindows([sample(0, 'writable'), sample(20, 'writable'), sample(40, 'writable'), sample(60, 'not-writable')])).toEqual([
      { from: 2, to: 40 },
    ]);
  });

  it('proves no span from a single writable answer', () => {
    expect(definitelyWritableWindows([sample(0, 'not-writable'), sample(20, 'writable'), sample(40, 'not-writable')])).toEqual([]);
  });

  it('breaks a run at an unanswered sample (the member may have been frozen in between)', () => {
    const samples = [sample(0, 'writable'), sample(20, 'writable'), sample(40, 'unanswered'), sample(300, 'writable'), sample(320, 'writable')];
    expect(definitelyWritableWindows(samples)).toEqual([
      { from: 2, to: 20 },
      { from: 302, to: 320 },
    ]);
  });

  it('breaks a run when the replication id changes (demoted and promoted again between two samples)', () => {
    const samples = [sample(0, 'writable', 'a'), sample(20, 'writable', 'a'), sample(40, 'writable', 'b'), sample(60, 'writable', 'b')];
    expect(definitelyWritableWindows(samples)).toEqual([
      { from: 2, to: 20 },
      { from: 42, to: 60 },
    ]);
  });
});

describe('possiblyWritableWindows', () => {
  it('spans from the first writable sample to the next sample that is not, and to the end for an open run', () => {
    const samples = [sample(0, 'writable'), sample(20, 'not-writable'), sample(40, 'writable'), sample(60, 'writable')];
    expect(possiblyWritableWindows(samples, 100)).toEqual([
      { from: 0, to: 20 },
      { from: 40, to: 100 },
    ]);
  });
});

describe('maximumSimultaneouslyWritable', () => {
  it('counts two members writable over the same span as two, with the window and the members', () => {
    const old = [sample(0, 'writable', 'a'), sample(100, 'writable', 'a'), sample(200, 'writable', 'a'), sample(220, 'not-writable')];
    const promoted = [sample(50, 'not-writable'), sample(70, 'writable', 'b'), sample(150, 'writable', 'b'), sample(300, 'writable', 'b')];
    expect(maximumSimultaneouslyWritable([
      { member: 'old', samples: old },
      { member: 'promoted', samples: promoted },
    ])).toEqual({ count: 2, window: { from: 72, to: 200, members: ['old', 'promoted'] } });
  });

  it('does not count a clean handover as two, however the samples of the two members interleave', () => {
    // The old primary's last writable answer was sent at 100 and the new primary's first one answered at 103:
    // each could have been executed on either side of the handover, so no instant is proven to have had two.
    const old = [sample(0, 'writable', 'a'), sample(100, 'writable', 'a'), sample(120, 'not-writable')];
    const promoted = [sample(81, 'not-writable'), sample(101, 'writable', 'b'), sample(121, 'writable', 'b')];
    expect(maximumSimultaneouslyWritable([
      { member: 'old', samples: old },
      { member: 'promoted', samples: promoted },
    ]).count).toBe(1);
  });

  it('reports zero when no member was ever definitely writable', () => {
    expect(maximumSimultaneouslyWritable([{ member: 'replica', samples: [sample(0, 'not-writable'), sample(20, 'not-writable')] }])).toEqual({
      count: 0,
      window: undefined,
    });
  });
});

describe('longestUncoveredWindow', () => {
  it('finds the longest gap, including those at the start and the end', () => {
    expect(longestUncoveredWindow([{ from: 10, to: 20 }, { from: 15, to: 30 }, { from: 80, to: 90 }], 0, 100)).toEqual({ from: 30, to: 80 });
    expect(longestUncoveredWindow([{ from: 30, to: 40 }], 0, 100)).toEqual({ from: 40, to: 100 });
    expect(longestUncoveredWindow([{ from: 60, to: 70 }], 0, 100)).toEqual({ from: 0, to: 60 });
    expect(longestUncoveredWindow([{ from: 0, to: 100 }], 0, 100)).toBeUndefined();
  });
});

describe('longestWithoutWritable', () => {
  it('measures a frozen primary until a promoted replica answers writable', () => {
    const frozen = [sample(0, 'writable', 'a'), sample(20, 'unanswered'), sample(270, 'unanswered')];
    const promoted = [sample(0, 'not-writable'), sample(500, 'writable', 'b'), sample(520, 'writable', 'b')];
    expect(longestWithoutWritable([
      { member: 'frozen', samples: frozen },
      { member: 'promoted', samples: promoted },
    ], 0, 600)).toEqual({ from: 20, to: 500 });
  });
});
