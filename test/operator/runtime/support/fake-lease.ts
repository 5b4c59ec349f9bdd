import { KubernetesApiError } from '../../../../operator/runtime/errors';
import type { LeaseLock, LeaseRecord, ObservedLease } from '../../../../operator/runtime/leader-election/lease-lock';

/** One Lease object in memory with the apiserver's optimistic concurrency. */
export class FakeLeaseStore {
  stored: ObservedLease | undefined;
  private nextResourceVersion = 1;
  readonly writes: Array<{ by: string; record: LeaseRecord }> = [];

  write(by: string, record: LeaseRecord, expectedResourceVersion: string | undefined): ObservedLease {
    if (expectedResourceVersion === undefined && this.stored) throw new KubernetesApiError('POST', 'leases', 409, { reason: 'AlreadyExists' });
    if (expectedResourceVersion !== undefined && this.stored?.resourceVersion !== expectedResourceVersion) {
      throw new KubernetesApiError('PUT', 'leases/x', 409, { reason: 'Conflict' });
    }
    this.stored = { record, resourceVersion: String(this.nextResourceVersion++) };
    this.writes.push({ by, record });
    return this.stored;
  }
}

/** One replica's view of the Lease; `partitioned` makes its requests fail, `hanging` makes them never answer. */
export class FakeLeaseLock implements LeaseLock {
  readonly description = 'test/lease';
  partitioned = false;
  hanging = false;

  constructor(
    private readonly store: FakeLeaseStore,
    private readonly replica: string,
  ) {}

  get(signal: AbortSignal): Promise<ObservedLease | undefined> {
    return this.call(signal, () => this.store.stored);
  }

  create(record: LeaseRecord, signal: AbortSignal): Promise<ObservedLease> {
    return this.call(signal, () => this.store.write(this.replica, record, undefined));
  }

  update(record: LeaseRecord, resourceVersion: string, signal: AbortSignal): Promise<ObservedLease> {
    return this.call(signal, () => this.store.write(this.replica, record, resourceVersion));
  }

  private call<T>(signal: AbortSignal, action: () => T): Promise<T> {
    if (this.hanging) {
      return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
    }
    if (this.partitioned) return Promise.reject(new Error('connect ECONNREFUSED'));
    try {
      return Promise.resolve(action());
    } catch (error) {
      return Promise.reject(error);
    }
  }
}
