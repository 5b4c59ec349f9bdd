/**
 * The controller lost its lease (or is stopping) while a reconcile was in flight. Invariant I6: from that moment it
 * performs no further Redis command or API write; the new leader re-observes and carries on.
 */
export class LeadershipLostError extends Error {
  override readonly name = 'LeadershipLostError';
  constructor() {
    super('leadership lost: no further topology change from this controller');
  }
}

/**
 * Checked before every Redis command and every API write of a reconcile. `leaseCurrent` (the manager's synchronous
 * lease check) catches a process that resumed after a pause longer than its renew deadline before any timer ran.
 */
export function throwIfLeadershipLost(signal: AbortSignal | undefined, leaseCurrent?: () => boolean): void {
  if (leaseCurrent !== undefined && !leaseCurrent()) throw new LeadershipLostError();
  if (signal?.aborted) throw new LeadershipLostError();
}
