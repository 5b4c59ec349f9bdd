/** The fields of a `coordination.k8s.io/v1` Lease spec that leader election uses. */
export interface LeaseRecord {
  readonly holderIdentity: string;
  readonly leaseDurationSeconds: number;
  /** RFC 3339 MicroTime. */
  readonly acquireTime?: string;
  /** RFC 3339 MicroTime. */
  readonly renewTime?: string;
  readonly leaseTransitions: number;
}

/** A Lease as read, with the resourceVersion that guards the next write. */
export interface ObservedLease {
  readonly record: LeaseRecord;
  readonly resourceVersion: string;
}

/**
 * The Lease I/O, behind an interface so the elector runs against an in-memory lock under fake timers. Writes are
 * conditional: `update` fails (409) if the Lease changed since `resourceVersion`, `create` fails if it exists.
 */
export interface LeaseLock {
  /** `namespace/name`, for logs. */
  readonly description: string;
  get(signal: AbortSignal): Promise<ObservedLease | undefined>;
  create(record: LeaseRecord, signal: AbortSignal): Promise<ObservedLease>;
  update(record: LeaseRecord, resourceVersion: string, signal: AbortSignal): Promise<ObservedLease>;
}
