// client-node is ESM-only; jest cannot load it, Node can (see nativeRequire).
jest.mock('@kubernetes/client-node', () =>
  jest.requireActual<typeof import('../operator/runtime/support/native-require')>('../operator/runtime/support/native-require').nativeRequire('@kubernetes/client-node'),
);

import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { e2eClient } from '../operator/runtime/support/e2e-cluster';
import { kubeconfigPath, useTestNamespace, waitFor } from './support';

jest.setTimeout(180_000);

const CHILD_SCRIPT = join(__dirname, '..', 'operator', 'runtime', 'support', 'leader-election-child.ts');
const LEASE_DURATION_MS = 15_000;
const RETRY_PERIOD_MS = 2_000;

interface ReconcileRecord {
  readonly identity: string;
  readonly event: 'ready' | 'start' | 'end' | 'exited' | 'failed';
  readonly atMs: number;
}

interface Interval {
  readonly identity: string;
  readonly startMs: number;
  readonly endMs: number;
}

function readRecords(file: string): ReconcileRecord[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ReconcileRecord);
}

/** Reconcile intervals per process; an unfinished one (its process was killed) ends at `killedAtMs`. */
function reconcileIntervals(records: ReconcileRecord[], killedAtMs: Map<string, number>): Interval[] {
  const open = new Map<string, number>();
  const intervals: Interval[] = [];
  for (const record of records) {
    if (record.event === 'start') open.set(record.identity, record.atMs);
    if (record.event === 'end') {
      intervals.push({ identity: record.identity, startMs: open.get(record.identity)!, endMs: record.atMs });
      open.delete(record.identity);
    }
  }
  for (const [identity, startMs] of open) intervals.push({ identity, startMs, endMs: killedAtMs.get(identity) ?? Date.now() });
  return intervals;
}

function countEnds(records: ReconcileRecord[], identity: string): number {
  return records.filter((record) => record.identity === identity && record.event === 'end').length;
}

function overlaps(intervals: Interval[]): Array<[Interval, Interval]> {
  const found: Array<[Interval, Interval]> = [];
  for (const a of intervals) {
    for (const b of intervals) {
      if (a.identity < b.identity && a.startMs <= b.endMs && b.startMs <= a.endMs) found.push([a, b]);
    }
  }
  return found;
}

describe('leader election between two controller processes', () => {
  const client = e2eClient();
  const children: ChildProcess[] = [];
  const namespace = useTestNamespace('rt-leader');
  let workDir: string;

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'redkite-leader-'));
    await client.apply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'work', namespace: namespace.name, labels: { 'redkite.io/e2e': 'leader-election' } },
      data: {},
    });
  });

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(workDir, { recursive: true, force: true });
    client.rest.close();
  });

  function startReplica(identity: string, recordsFile: string): ChildProcess {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD_SCRIPT, kubeconfigPath(), namespace.name, recordsFile, identity], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    children.push(child);
    return child;
  }

  const exited = (child: ChildProcess) =>
    new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));

  it('hands over within the lease duration after the leader is SIGKILLed, never reconciling on both at once', async () => {
    const recordsFile = join(workDir, 'kill.jsonl');
    const processes = new Map([
      ['replica-a', startReplica('replica-a', recordsFile)],
      ['replica-b', startReplica('replica-b', recordsFile)],
    ]);
    const firstLeader = await waitFor(() => readRecords(recordsFile).find((record) => record.event === 'start')?.identity, {
      description: 'a first leader to reconcile',
      timeoutMs: 60_000,
    });
    const successor = firstLeader === 'replica-a' ? 'replica-b' : 'replica-a';
    // Let the leader work for a while: the follower must stay idle all along.
    await waitFor(() => countEnds(readRecords(recordsFile), firstLeader) >= 10, { description: 'ten reconciles by the leader' });
    expect(readRecords(recordsFile).some((record) => record.identity === successor && record.event === 'start')).toBe(false);

    const killedAtMs = Date.now();
    processes.get(firstLeader)!.kill('SIGKILL');
    await exited(processes.get(firstLeader)!);
    const takeover = await waitFor(
      () => readRecords(recordsFile).find((record) => record.identity === successor && record.event === 'start' && record.atMs > killedAtMs),
      { description: 'the successor to reconcile', timeoutMs: LEASE_DURATION_MS + 4 * RETRY_PERIOD_MS, intervalMs: 50 },
    );
    const takeoverMs = takeover.atMs - killedAtMs;
    console.log(`leader takeover after SIGKILL: ${takeoverMs} ms (lease ${LEASE_DURATION_MS} ms, retry ${RETRY_PERIOD_MS} ms)`);
    // The successor judges expiry from when it last saw the Lease change (≤ one retry period after the last renewal),
    // then acts at its next attempt: at most lease duration + about one retry period after the kill.
    expect(takeoverMs).toBeLessThanOrEqual(LEASE_DURATION_MS + 1.2 * RETRY_PERIOD_MS + 1000);

    await waitFor(() => countEnds(readRecords(recordsFile), successor) >= 3, { description: 'three reconciles by the successor' });
    const intervals = reconcileIntervals(readRecords(recordsFile), new Map([[firstLeader, killedAtMs]]));
    expect(intervals.filter((interval) => interval.identity === firstLeader).length).toBeGreaterThan(5);
    expect(intervals.filter((interval) => interval.identity === successor).length).toBeGreaterThan(2);
    expect(overlaps(intervals)).toEqual([]);
    processes.get(successor)!.kill('SIGTERM');
    await exited(processes.get(successor)!);
  });

  it('hands over at once when the leader shuts down gracefully (the Lease is released)', async () => {
    const recordsFile = join(workDir, 'term.jsonl');
    const processes = new Map([
      ['replica-c', startReplica('replica-c', recordsFile)],
      ['replica-d', startReplica('replica-d', recordsFile)],
    ]);
    const firstLeader = await waitFor(() => readRecords(recordsFile).find((record) => record.event === 'start')?.identity, {
      description: 'a first leader to reconcile',
      timeoutMs: 60_000,
    });
    const successor = firstLeader === 'replica-c' ? 'replica-d' : 'replica-c';
    await waitFor(() => countEnds(readRecords(recordsFile), firstLeader) >= 3, { description: 'three reconciles by the leader' });
    const stoppedAtMs = Date.now();
    processes.get(firstLeader)!.kill('SIGTERM');
    await exited(processes.get(firstLeader)!);
    const takeover = await waitFor(
      () => readRecords(recordsFile).find((record) => record.identity === successor && record.event === 'start'),
      { description: 'the successor to reconcile', timeoutMs: LEASE_DURATION_MS, intervalMs: 50 },
    );
    console.log(`leader takeover after SIGTERM: ${takeover.atMs - stoppedAtMs} ms`);
    expect(takeover.atMs - stoppedAtMs).toBeLessThan(1.2 * RETRY_PERIOD_MS + 2000);
    const records = readRecords(recordsFile);
    expect(records.some((record) => record.identity === firstLeader && record.event === 'exited')).toBe(true);
    expect(overlaps(reconcileIntervals(records, new Map()))).toEqual([]);
    processes.get(successor)!.kill('SIGTERM');
    await exited(processes.get(successor)!);
  });
});
