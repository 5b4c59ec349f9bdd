import { toMicroTime } from '../events/micro-time';
import type { LeaseRecord, ObservedLease } from './lease-lock';

/** What the candidate remembers between attempts (client-go's `observedRecord` / `observedTime`). */
export interface LeaseObservation {
  /** The record as last read, compared by value to notice the holder renewing. */
  readonly recordJson: string;
  /** Our monotonic clock when the record last changed. Expiry is judged by this, not by the holder's clock (I7). */
  readonly observedAtMs: number;
}

export type LeaseDecision =
  | { readonly action: 'create'; readonly record: LeaseRecord }
  | { readonly action: 'update'; readonly record: LeaseRecord; readonly resourceVersion: string }
  | { readonly action: 'wait'; readonly holderIdentity: string };

/**
 * Pure core of leader election: given what is stored, what we saw before, who we are and the time, decide whether to
 * create, take over/renew, or wait. A Lease held by someone else counts as expired only when it has not changed for
 * `leaseDurationSeconds` as measured on *our* clock since we first saw its current content, so clock skew between
 * replicas cannot shorten it.
 */
export function decideLease(input: {
  readonly stored: ObservedLease | undefined;
  readonly previous: LeaseObservation | undefined;
  readonly identity: string;
  /** Wall clock, written into the record. */
  readonly nowMs: number;
  /** Monotonic clock, for expiry. @default nowMs */
  readonly monotonicNowMs?: number;
  readonly leaseDurationSeconds: number;
}): { readonly decision: LeaseDecision; readonly observation: LeaseObservation | undefined } {
  const { stored, previous, identity, nowMs, leaseDurationSeconds } = input;
  const monotonicNowMs = input.monotonicNowMs ?? nowMs;
  const now = toMicroTime(nowMs);
  if (!stored) {
    return {
      decision: {
        action: 'create',
        record: { holderIdentity: identity, leaseDurationSeconds, acquireTime: now, renewTime: now, leaseTransitions: 0 },
      },
      observation: undefined,
    };
  }
  const recordJson = JSON.stringify(stored.record);
  const observation: LeaseObservation =
    previous && previous.recordJson === recordJson ? previous : { recordJson, observedAtMs: monotonicNowMs };
  const { holderIdentity } = stored.record;
  const heldByUs = holderIdentity === identity;
  const heldByOther = holderIdentity !== '' && !heldByUs;
  const expiresAtMs = observation.observedAtMs + stored.record.leaseDurationSeconds * 1000;
  if (heldByOther && monotonicNowMs < expiresAtMs) {
    return { decision: { action: 'wait', holderIdentity }, observation };
  }
  return {
    decision: {
      action: 'update',
      resourceVersion: stored.resourceVersion,
      record: {
        holderIdentity: identity,
        leaseDurationSeconds,
        acquireTime: heldByUs ? stored.record.acquireTime : now,
        renewTime: now,
        leaseTransitions: heldByUs ? stored.record.leaseTransitions : stored.record.leaseTransitions + 1,
      },
    },
    observation,
  };
}
