// client-node is ESM-only; jest cannot load it, Node can (see nativeRequire). The reconciler imports the runtime's index.
jest.mock('@kubernetes/client-node', () =>
  jest.requireActual<typeof import('../runtime/support/native-require')>('../runtime/support/native-require').nativeRequire('@kubernetes/client-node'),
);

import type { JournalEntry, RedisCall } from './fakes/call-journal';
import type { ReconcilerHarness } from './fakes/reconciler-harness';
import { clusterReadyToFailOver, recordWrites } from './fakes/scenarios';

/** The changes (API writes, Redis commands but probes, Events) among `entries`, requests refused as aborted left out. */
function changesAfter(harness: ReconcilerHarness, entries: readonly JournalEntry[]): string[] {
  return harness.journal.describeChanges(entries).filter((line) => !line.includes('→ aborted'));
}

/** The lease is lost (its signal aborted) the moment a Redis command of this name arrives. */
function leaseLostOn(harness: ReconcilerHarness, command: RedisCall['command']): AbortSignal {
  const lease = new AbortController();
  harness.redis.onCommand = (call) => {
    if (call.command === command) lease.abort();
  };
  return lease.signal;
}

/** Where the first detach (`REPLICAOF`) is among `calls`. */
function firstReplicaOf(calls: readonly JournalEntry[]): number {
  const index = calls.findIndex((entry) => entry.system === 'redis' && entry.command === 'REPLICAOF');
  if (index < 0) throw new Error('the pass sent no REPLICAOF');
  return index;
}

describe('RedisClusterReconciler after the lease is lost (I6)', () => {
  it('sends no Redis command and makes no API write when the signal is aborted before the pass', async () => {
    const { harness, cluster } = await clusterReadyToFailOver();
    const lease = new AbortController();
    lease.abort();

    const { calls } = await harness.reconcileRecorded(cluster, { signal: lease.signal });

    expect(changesAfter(harness, calls)).toEqual([]);
    expect(cluster.server(1).role).toBe('replica');
  });

  it('makes no change once the lease is lost while the pass observes the members', async () => {
    const { harness, cluster } = await clusterReadyToFailOver();
    const signal = leaseLostOn(harness, 'probe');

    const { calls } = await harness.reconcileRecorded(cluster, { signal });

    expect(changesAfter(harness, calls)).toEqual([]);
  });

  it('sends no topology command once the lease is lost right after the record write', async () => {
    const { harness, cluster } = await clusterReadyToFailOver();
    const lease = new AbortController();
    harness.kube.onWrite = (call) => {
      if (recordWrites([call]).length === 1) lease.abort();
    };

    const { calls } = await harness.reconcileRecorded(cluster, { signal: lease.signal });

    const record = calls.findIndex((entry) => recordWrites([entry]).length === 1);
    expect(record).toBeGreaterThanOrEqual(0);
    expect(changesAfter(harness, calls.slice(record + 1))).toEqual([]);
    // The decision is durable: the next leader reads it and carries it out.
    expect(cluster.status().primaryRecord).toMatchObject({ primary: 'cache-1', epoch: 2 });
  });

  it('stops between two topology commands once the lease is lost: the detached replica is not followed by a promotion', async () => {
    const { harness, cluster } = await clusterReadyToFailOver();
    const signal = leaseLostOn(harness, 'REPLICAOF');

    const { calls } = await harness.reconcileRecorded(cluster, { signal });

    expect(changesAfter(harness, calls.slice(firstReplicaOf(calls) + 1))).toEqual([]);
    expect(cluster.server(1).role).toBe('replica');
  });

  it('sends no Redis command and makes no API write once the lease is past its renew deadline, before the signal fires', async () => {
    const { harness, cluster } = await clusterReadyToFailOver();
    // A leader paused (SIGSTOP, a VM pause) past its renew deadline resumes: its abort timer has not run yet.
    harness.leaseCurrent = false;

    const { calls } = await harness.reconcileRecorded(cluster);

    expect(changesAfter(harness, calls)).toEqual([]);
  });

  it('stops between two topology commands once the lease is past its renew deadline', async () => {
    const { harness, cluster } = await clusterReadyToFailOver();
    harness.redis.onCommand = (call) => {
      if (call.command === 'REPLICAOF') harness.leaseCurrent = false;
    };

    const { calls } = await harness.reconcileRecorded(cluster);

    expect(changesAfter(harness, calls.slice(firstReplicaOf(calls) + 1))).toEqual([]);
  });

  it('ends the pass quietly (no error to retry) when the lease is lost', async () => {
    const { harness, cluster } = await clusterReadyToFailOver();
    const signal = leaseLostOn(harness, 'REPLICAOF');

    await expect(harness.reconcile(cluster, { signal })).resolves.toBeUndefined();
  });
});
