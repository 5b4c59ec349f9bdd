import { LeaderElector, LeadershipEndReason } from '../../../../operator/runtime/leader-election/leader-elector';
import { FakeLeaseLock, FakeLeaseStore } from '../support/fake-lease';
import { silentLogger } from '../support/test-logger';

interface Replica {
  readonly elector: LeaderElector;
  readonly lock: FakeLeaseLock;
  readonly stop: AbortController;
  readonly run: Promise<void>;
  startedAtMs?: number;
  stoppedAtMs?: number;
  stopReason?: LeadershipEndReason;
  leadership?: AbortSignal;
}

function startReplica(store: FakeLeaseStore, identity: string): Replica {
  const lock = new FakeLeaseLock(store, identity);
  const stop = new AbortController();
  const replica: Partial<Replica> = { lock, stop };
  const elector = new LeaderElector({
    lock,
    identity,
    random: () => 0,
    logger: silentLogger,
    onStartedLeading: (leadership) => {
      replica.startedAtMs = Date.now();
      replica.leadership = leadership;
    },
    onStoppedLeading: (reason) => {
      replica.stoppedAtMs = Date.now();
      replica.stopReason = reason;
    },
  });
  return Object.assign(replica, { elector, run: elector.run(stop.signal) }) as Replica;
}

describe('LeaderElector', () => {
  let store: FakeLeaseStore;
  beforeEach(() => {
    jest.useFakeTimers({ now: 0 });
    store = new FakeLeaseStore();
  });
  afterEach(() => jest.useRealTimers());

  it('acquires a Lease nobody holds and starts leading', async () => {
    const a = startReplica(store, 'a');
    await jest.advanceTimersByTimeAsync(0);
    expect(a.elector.isLeader).toBe(true);
    expect(a.startedAtMs).toBe(0);
    expect(store.stored?.record).toMatchObject({ holderIdentity: 'a', leaseDurationSeconds: 15 });
    a.stop.abort();
    await a.run;
  });

  it('renews every retry period', async () => {
    const a = startReplica(store, 'a');
    await jest.advanceTimersByTimeAsync(10_000);
    expect(store.writes.filter((write) => write.by === 'a')).toHaveLength(6);
    a.stop.abort();
    await a.run;
  });

  it('leaves a renewed Lease to its holder', async () => {
    const a = startReplica(store, 'a');
    await jest.advanceTimersByTimeAsync(0);
    const b = startReplica(store, 'b');
    await jest.advanceTimersByTimeAsync(60_000);
    expect(b.startedAtMs).toBeUndefined();
    expect(b.elector.state).toBe('candidate');
    a.stop.abort();
    b.stop.abort();
    await Promise.all([a.run, b.run]);
  });

  it('fences: a leader that cannot renew stops before anyone else can acquire', async () => {
    const a = startReplica(store, 'a');
    await jest.advanceTimersByTimeAsync(0);
    const b = startReplica(store, 'b');
    await jest.advanceTimersByTimeAsync(4000);
    const lastRenewMs = 4000;
    a.lock.partitioned = true;
    await jest.advanceTimersByTimeAsync(30_000);
    expect(a.stopReason).toBe('renew-deadline-exceeded');
    expect(a.leadership?.aborted).toBe(true);
    expect(a.stoppedAtMs).toBe(lastRenewMs + 10_000);
    expect(b.startedAtMs).toBeGreaterThanOrEqual(lastRenewMs + 15_000);
    expect(a.stoppedAtMs!).toBeLessThan(b.startedAtMs!);
    await Promise.all([a.run, (b.stop.abort(), b.run)]);
  });

  it('fences even when renew requests hang instead of failing', async () => {
    const a = startReplica(store, 'a');
    await jest.advanceTimersByTimeAsync(2000);
    a.lock.hanging = true;
    await jest.advanceTimersByTimeAsync(12_000);
    expect(a.stoppedAtMs).toBe(12_000);
    expect(a.elector.isLeader).toBe(false);
    await a.run;
  });

  it('stops at once when it finds another holder in the Lease', async () => {
    const a = startReplica(store, 'a');
    await jest.advanceTimersByTimeAsync(0);
    store.write('intruder', { ...store.stored!.record, holderIdentity: 'intruder' }, store.stored!.resourceVersion);
    await jest.advanceTimersByTimeAsync(2000);
    expect(a.stopReason).toBe('lease-taken-by-other');
    expect(a.stoppedAtMs).toBe(2000);
    await a.run;
  });

  it('does not campaign again after losing leadership', async () => {
    const a = startReplica(store, 'a');
    await jest.advanceTimersByTimeAsync(0);
    a.lock.partitioned = true;
    await jest.advanceTimersByTimeAsync(12_000);
    await a.run;
    a.lock.partitioned = false;
    const writes = store.writes.length;
    await jest.advanceTimersByTimeAsync(60_000);
    expect(store.writes).toHaveLength(writes);
  });

  it('releases the Lease on shutdown so a waiting candidate takes over at its next attempt', async () => {
    const a = startReplica(store, 'a');
    await jest.advanceTimersByTimeAsync(0);
    const b = startReplica(store, 'b');
    await jest.advanceTimersByTimeAsync(5000);
    a.stop.abort();
    await a.run;
    await a.elector.release();
    expect(a.stopReason).toBe('released');
    expect(store.stored?.record).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1 });
    const releasedAtMs = Date.now();
    await jest.advanceTimersByTimeAsync(2000);
    expect(b.startedAtMs).toBeDefined();
    expect(b.startedAtMs! - releasedAtMs).toBeLessThanOrEqual(2000);
    b.stop.abort();
    await b.run;
  });

  it('rejects timings that could not fence', () => {
    const lock = new FakeLeaseLock(store, 'a');
    const common = { lock, identity: 'a', logger: silentLogger, onStartedLeading: () => undefined, onStoppedLeading: () => undefined };
    expect(() => new LeaderElector({ ...common, leaseDurationMs: 10_000, renewDeadlineMs: 10_000 })).toThrow(RangeError);
  });
});
