import { decideLease } from '../../../../operator/runtime/leader-election/lease-decision';
import type { ObservedLease } from '../../../../operator/runtime/leader-election/lease-lock';

const heldBy = (holderIdentity: string, renewTime = '2020-01-01T00:00:00.000000Z'): ObservedLease => ({
  resourceVersion: '7',
  record: { holderIdentity, leaseDurationSeconds: 15, renewTime, acquireTime: renewTime, leaseTransitions: 3 },
});

describe('decideLease', () => {
  it('creates a Lease that does not exist', () => {
    const { decision } = decideLease({ stored: undefined, previous: undefined, identity: 'me', nowMs: 0, leaseDurationSeconds: 15 });
    expect(decision).toMatchObject({ action: 'create', record: { holderIdentity: 'me', leaseTransitions: 0, leaseDurationSeconds: 15 } });
  });

  it('waits for a Lease another holder renewed, however old its renewTime looks (clock skew)', () => {
    const { decision } = decideLease({ stored: heldBy('other'), previous: undefined, identity: 'me', nowMs: 1_000_000, leaseDurationSeconds: 15 });
    expect(decision).toEqual({ action: 'wait', holderIdentity: 'other' });
  });

  it('takes over once the Lease has not changed for the lease duration on our clock', () => {
    const first = decideLease({ stored: heldBy('other'), previous: undefined, identity: 'me', nowMs: 1000, leaseDurationSeconds: 15 });
    const before = decideLease({ stored: heldBy('other'), previous: first.observation, identity: 'me', nowMs: 15_999, leaseDurationSeconds: 15 });
    const after = decideLease({ stored: heldBy('other'), previous: before.observation, identity: 'me', nowMs: 16_000, leaseDurationSeconds: 15 });
    expect(before.decision.action).toBe('wait');
    expect(after.decision).toMatchObject({ action: 'update', resourceVersion: '7', record: { holderIdentity: 'me', leaseTransitions: 4 } });
  });

  it('restarts the expiry clock whenever the holder renews', () => {
    const first = decideLease({ stored: heldBy('other', 'a'), previous: undefined, identity: 'me', nowMs: 0, leaseDurationSeconds: 15 });
    const renewed = decideLease({ stored: heldBy('other', 'b'), previous: first.observation, identity: 'me', nowMs: 10_000, leaseDurationSeconds: 15 });
    const later = decideLease({ stored: heldBy('other', 'b'), previous: renewed.observation, identity: 'me', nowMs: 20_000, leaseDurationSeconds: 15 });
    expect(later.decision.action).toBe('wait');
  });

  it('acquires a released Lease at once', () => {
    const released: ObservedLease = { resourceVersion: '9', record: { ...heldBy('').record, leaseDurationSeconds: 1 } };
    const { decision } = decideLease({ stored: released, previous: undefined, identity: 'me', nowMs: 0, leaseDurationSeconds: 15 });
    expect(decision).toMatchObject({ action: 'update', record: { holderIdentity: 'me', leaseDurationSeconds: 15 } });
  });

  it('renews its own Lease keeping acquireTime and transitions', () => {
    const { decision } = decideLease({ stored: heldBy('me'), previous: undefined, identity: 'me', nowMs: 5000, leaseDurationSeconds: 15 });
    expect(decision).toMatchObject({ action: 'update', record: { acquireTime: '2020-01-01T00:00:00.000000Z', leaseTransitions: 3 } });
  });
});
