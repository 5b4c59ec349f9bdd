import { setTimeout as delay } from 'node:timers/promises';
import { SwitchoverTopology } from '../../bench/support/switchover-topology';
import { RedisConnectionPool } from '../../operator/redis/connection-pool';
import { parseReplicationInfo } from '../../operator/redis/info-parser';
import { RedisOperationAbortedError } from '../../operator/redis/operation-aborted';
import { switchover, type SwitchoverRequest, type SwitchoverResult } from '../../operator/redis/switchover';
import { FaultTimeline, HistoryWriter, RoleSampler, assertHistory, checkHistory, type RecordedWrite } from '../support/history';
import type { RedisServerProcess } from '../support/redis-process';
import { waitUntil } from '../support/wait-until';

jest.setTimeout(60_000);

/**
 * redkite's switchover (operator/redis/switchover.ts) on real redis-server processes: one primary and two replicas
 * with redkite's replication settings (min-replicas-to-write 1 among them), no Kubernetes. Each test starts its own
 * servers. A writer follows the primary (SET + WAIT 1, re-resolving by ROLE after an error), a second one holds its
 * connection to the first primary, and a sampler reads every member's ROLE every 10 ms: the history checker then
 * proves that nothing acknowledged was lost and that at most one member was writable at any time.
 */
let topology: SwitchoverTopology;
let pool: RedisConnectionPool;

beforeEach(async () => {
  topology = await SwitchoverTopology.start('127.0.3');
  pool = new RedisConnectionPool();
});

afterEach(async () => {
  await pool?.close();
  // A test may leave a server frozen; stop() kills it either way.
  await topology?.stop();
});

function server(index: number): RedisServerProcess {
  return topology.servers[index]!;
}

/**
 * The server that reports role master, found as a client without Sentinel would. A server that does not answer
 * within 200 ms (one test freezes one) is left out rather than waited for.
 */
async function currentPrimary(): Promise<RedisServerProcess> {
  const roles = await Promise.all(
    topology.servers.map((_, index) =>
      Promise.race([
        (topology.admin(index).call('ROLE') as Promise<unknown[]>).then((role) => role[0]),
        delay(200).then(() => 'no answer'),
      ]),
    ),
  );
  const primaries = topology.servers.filter((_, index) => roles[index] === 'master');
  if (primaries.length !== 1) throw new Error(`${primaries.length} servers report role master`);
  return primaries[0]!;
}

/** Writers, a sampler and a fault timeline around the test's switchovers. */
function observeHistory() {
  const faults = new FaultTimeline();
  const sampler = RoleSampler.start({
    members: () => topology.servers.map((member, index) => ({ name: `s${index}`, ...member.endpoint })),
    intervalMilliseconds: 10,
  });
  const following = HistoryWriter.start({
    name: 'following',
    address: async () => (await currentPrimary()).endpoint,
    pauseAfterErrorMilliseconds: 1,
  });
  const firstPrimary = server(0).endpoint;
  const held = HistoryWriter.start({ name: 'held', address: () => firstPrimary, connection: 'hold', pauseAfterErrorMilliseconds: 1 });
  return {
    faults,
    following,
    held,
    /** Stops everything and checks the history against the primary at the end. */
    check: async (finalPrimary: RedisServerProcess) => {
      const result = await checkHistory({ writers: [following, held], sampler, finalPrimary: finalPrimary.endpoint, faults });
      assertHistory(result, { lost: 0, maxWritablePrimaries: 1 });
      return result;
    },
    stop: () => Promise.all([following.stop(), held.stop(), sampler.stop()]),
  };
}

async function moreAcknowledged(writer: HistoryWriter, count: number): Promise<void> {
  const target = writer.acknowledged.length + count;
  await waitUntil(`${writer.name} has ${count} more acknowledged writes`, () => writer.acknowledged.length >= target, {
    timeoutMilliseconds: 15_000,
    pollIntervalMilliseconds: 5,
  });
}

/** The longest time between two consecutive acknowledgements that overlaps [from, to] (epoch ms). */
function longestGap(writes: readonly RecordedWrite[], from: number, to: number): number {
  let longest = 0;
  for (let index = 1; index < writes.length; index++) {
    const [previous, next] = [writes[index - 1]!.acknowledgedAt, writes[index]!.acknowledgedAt];
    if (next >= from && previous <= to) longest = Math.max(longest, next - previous);
  }
  return longest;
}

function request(primary: number, target: number, other: number, extra: Partial<SwitchoverRequest> = {}): SwitchoverRequest {
  return { primary: server(primary).endpoint, target: server(target).endpoint, otherReplicas: [server(other).endpoint], ...extra };
}

async function replication(index: number) {
  return parseReplicationInfo(await topology.admin(index).info('replication'));
}

/** `calls` of one command in INFO commandstats (0 when never called). */
async function commandCalls(index: number, command: string): Promise<number> {
  const stats = await topology.admin(index).info('commandstats');
  return Number(new RegExp(`^cmdstat_${command.replace('|', '\\|')}:calls=(\\d+)`, 'm').exec(stats)?.[1] ?? 0);
}

async function allCommandCalls(command: string): Promise<number[]> {
  return Promise.all(topology.servers.map((_, index) => commandCalls(index, command)));
}

/** `INFO stats` counter of a server. */
async function statsCounter(index: number, name: string): Promise<number> {
  return Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(await topology.admin(index).info('stats'))?.[1]);
}

describe('switchover (pause-and-promote) on real servers', () => {
  it('moves the primary round the ring: nothing acknowledged is lost, one writable primary at a time, everyone follows the new one by partial resync', async () => {
    const history = observeHistory();
    try {
      await moreAcknowledged(history.following, 200);
      for (const [primary, target, other] of [
        [0, 1, 2],
        [1, 2, 0],
        [2, 0, 1],
      ] as const) {
        const [fullSyncsBefore, partialSyncsBefore] = [await statsCounter(target, 'sync_full'), await statsCounter(target, 'sync_partial_ok')];
        const done = history.faults.begin('switchover', `${server(primary).host} → ${server(target).host}`);
        const startedAt = Date.now();
        const result = await switchover(pool, request(primary, target, other, { timeoutMilliseconds: 2000 }));
        done();
        expect(result).toMatchObject({ outcome: 'completed', method: 'pause-and-promote', newPrimary: `${server(target).host}:6379`, replicasNotRepointed: [] });
        const completed = result as Extract<SwitchoverResult, { outcome: 'completed' }>;
        expect(completed.writePauseMilliseconds).toBeLessThanOrEqual(2000);

        for (const follower of [primary, other]) {
          await waitUntil(`${server(follower).host} follows ${server(target).host} with its link up`, async () => {
            const info = await replication(follower);
            return info.role === 'replica' && info.primaryHost === server(target).host && info.primaryLinkUp && !info.syncInProgress;
          });
        }
        // Both continued from their offsets: the target's history shares the old one up to where they stopped.
        expect(await statsCounter(target, 'sync_full')).toBe(fullSyncsBefore);
        expect(await statsCounter(target, 'sync_partial_ok')).toBe(partialSyncsBefore + 2);

        await moreAcknowledged(history.following, 200);
        const gap = longestGap(history.following.acknowledged, startedAt, startedAt + completed.durationMilliseconds);
        expect(gap).toBeLessThan(2000);
      }
      const result = await history.check(server(0));
      expect(result.acknowledged).toBeGreaterThanOrEqual(800);
      // The held connection wrote to the first primary until its demotion and was refused after it.
      expect(history.held.acknowledged.length).toBeGreaterThan(0);
      expect(history.held.failures.some((failure) => failure.message.startsWith('READONLY'))).toBe(true);
    } finally {
      await history.stop();
    }
  });

  it('aborts when the target cannot catch up while writes are paused: writes resume on the old primary within the timeout', async () => {
    const history = observeHistory();
    const timeoutMilliseconds = 1000;
    try {
      await moreAcknowledged(history.following, 200);
      const replicaOfCallsBefore = await allCommandCalls('replicaof');
      const startedAt = Date.now();
      const result = await switchover(
        pool,
        request(0, 1, 2, {
          timeoutMilliseconds,
          // Frozen the moment writes are paused: the target answers nothing more, so it cannot be seen to catch up.
          onStep: (step) => {
            if (step === 'draining') void server(1).freeze();
          },
        }),
      );
      expect(result).toMatchObject({ outcome: 'aborted', code: 'target-not-caught-up', reason: expect.stringContaining('while writes were paused') });
      const aborted = result as Extract<SwitchoverResult, { outcome: 'aborted' }>;
      expect(aborted.writePauseMilliseconds).toBeGreaterThanOrEqual(timeoutMilliseconds);
      expect(aborted.writePauseMilliseconds).toBeLessThan(timeoutMilliseconds + 500);

      // The old primary keeps its role and takes writes again, acknowledged by the replica that is not frozen.
      await moreAcknowledged(history.following, 100);
      expect(history.following.acknowledged.at(-1)!.server).toBe(`${server(0).host}:6379`);
      expect(longestGap(history.following.acknowledged, startedAt, startedAt + aborted.durationMilliseconds)).toBeLessThan(timeoutMilliseconds + 700);
      // No role changed anywhere (the frozen target is counted after it thaws).
      await server(1).thaw();
      expect(await allCommandCalls('replicaof')).toEqual(replicaOfCallsBefore);
      expect(await replication(1)).toMatchObject({ role: 'replica', primaryHost: server(0).host });
      await history.check(server(0));
    } finally {
      await server(1).thaw();
      await history.stop();
    }
  });

  it('issues no command at all under an already aborted signal', async () => {
    const [pauseCallsBefore, infoCallsBefore] = [await allCommandCalls('client|pause'), await allCommandCalls('info')];
    const controller = new AbortController();
    controller.abort(new Error('lease lost'));
    const attempt = switchover(pool, request(0, 1, 2, { signal: controller.signal }));
    await expect(attempt).rejects.toBeInstanceOf(RedisOperationAbortedError);
    await expect(attempt).rejects.toMatchObject({ name: 'AbortError', cause: new Error('lease lost') });
    expect(pool.size).toBe(0);
    expect(await allCommandCalls('client|pause')).toEqual(pauseCallsBefore);
    // Reading the stats is the only INFO since: one more per server, from this test.
    expect(await allCommandCalls('info')).toEqual(infoCallsBefore.map((calls) => calls + 2));
  });

  it('stops at once when the signal is aborted mid-switchover; the pause then lapses by itself and the old primary writes again', async () => {
    const history = observeHistory();
    const timeoutMilliseconds = 500;
    try {
      await moreAcknowledged(history.following, 100);
      const replicaOfCallsBefore = await allCommandCalls('replicaof');
      const controller = new AbortController();
      let pausingAt = 0;
      const attempt = switchover(
        pool,
        request(0, 1, 2, {
          timeoutMilliseconds,
          onStep: (step) => {
            if (step === 'pausing') pausingAt = Date.now();
            if (step === 'draining') controller.abort(new Error('lease lost'));
          },
          signal: controller.signal,
        }),
      );
      await expect(attempt).rejects.toBeInstanceOf(RedisOperationAbortedError);
      // Not even the unpause was sent: writes wait until the pause (timeout + 1 s) expires on its own.
      expect(await allCommandCalls('replicaof')).toEqual(replicaOfCallsBefore);
      expect(await commandCalls(0, 'client|unpause')).toBe(0);
      await moreAcknowledged(history.following, 50);
      expect(history.following.acknowledged.at(-1)!.server).toBe(`${server(0).host}:6379`);
      const pauseMilliseconds = timeoutMilliseconds + 1000;
      const gap = longestGap(history.following.acknowledged, pausingAt, pausingAt + pauseMilliseconds);
      expect(gap).toBeGreaterThanOrEqual(pauseMilliseconds - 100);
      expect(gap).toBeLessThan(pauseMilliseconds + 700);
      await history.check(server(0));
    } finally {
      await history.stop();
    }
  });
});
