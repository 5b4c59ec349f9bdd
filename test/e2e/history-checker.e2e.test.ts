import Redis from 'ioredis';
import {
  FaultTimeline,
  HistoryViolationError,
  HistoryWriter,
  RoleSampler,
  assertHistory,
  checkHistory,
  longestWithoutWritable,
  type SampledMember,
} from '../support/history';
import { allocateLoopbackHosts, releaseLoopbackHosts } from '../support/loopback-hosts';
import { RedisServerProcess, startRedisServers } from '../support/redis-process';
import { waitUntil } from '../support/wait-until';

jest.setTimeout(60_000);

/**
 * Real redis-server processes and no controller: each test builds its topology, plays the failure by hand and
 * stops its processes. The point is to prove the checker can fail (a real split brain is reported) and does not
 * fail a clean handover.
 */
interface Topology {
  readonly servers: readonly RedisServerProcess[];
  /** Members for the sampler, named `s0`, `s1`, ... after their index. */
  readonly members: () => SampledMember[];
  /** A connection to a server for the test's own commands (closed by {@link stop}). */
  admin(server: RedisServerProcess): Redis;
  /** Waits until `replica` has completed a sync with `primary` and its link is up. */
  waitLinked(replica: RedisServerProcess, primary: RedisServerProcess): Promise<void>;
  stop(): Promise<void>;
}

/** Starts `count` servers: the first a primary, the others its replicas, all with `config`. */
async function startTopology(count: number, config: Record<string, string> = {}): Promise<Topology> {
  const hosts = await allocateLoopbackHosts(count);
  const [primary] = await startRedisServers([hosts[0]!], { config });
  const replicas = await startRedisServers(hosts.slice(1), { config, replicaOf: { host: primary!.host } }).catch(async (error: unknown) => {
    await primary!.stop();
    throw error;
  });
  const servers = [primary!, ...replicas];
  const clients = new Map<RedisServerProcess, Redis>();
  const admin = (server: RedisServerProcess): Redis => {
    let client = clients.get(server);
    if (client === undefined) {
      client = new Redis({ ...server.endpoint, maxRetriesPerRequest: 0, commandTimeout: 5000 });
      client.on('error', () => undefined);
      clients.set(server, client);
    }
    return client;
  };
  const topology: Topology = {
    servers,
    members: () => servers.map((server, index) => ({ name: `s${index}`, ...server.endpoint })),
    admin,
    waitLinked: async (replica, primary) => {
      await waitUntil(`${replica.host} replicates from ${primary.host} with its link up`, async () => {
        const info = await admin(replica).info('replication');
        return info.includes(`master_host:${primary.host}\r`) && info.includes('master_link_status:up') && info.includes('master_sync_in_progress:0');
      });
    },
    stop: async () => {
      clients.forEach((client) => client.disconnect());
      await Promise.all(servers.map((server) => server.stop()));
      releaseLoopbackHosts(hosts);
    },
  };
  try {
    await Promise.all(replicas.map((replica) => topology.waitLinked(replica, primary!)));
  } catch (error) {
    await topology.stop();
    throw error;
  }
  return topology;
}

/** The server that reports role master, as a Sentinel-aware client would find it. */
async function currentPrimary(topology: Topology): Promise<RedisServerProcess> {
  const roles = await Promise.all(topology.servers.map(async (server) => ((await topology.admin(server).call('ROLE')) as unknown[])[0]));
  const primaries = topology.servers.filter((_, index) => roles[index] === 'master');
  if (primaries.length !== 1) throw new Error(`${primaries.length} servers report role master`);
  return primaries[0]!;
}

function acknowledgedSentAfter(writer: HistoryWriter, time: number): number {
  return writer.acknowledged.filter((write) => write.sentAt > time).length;
}

describe('the history checker on real redis-server processes', () => {
  it('reports lost writes and two writable primaries after a split brain that a held connection kept writing into', async () => {
    const topology = await startTopology(4);
    const [old, promoted, oldSideReplica, promotedSideReplica] = topology.servers as [RedisServerProcess, RedisServerProcess, RedisServerProcess, RedisServerProcess];
    const faults = new FaultTimeline();
    const sampler = RoleSampler.start({ members: topology.members, intervalMilliseconds: 20 });
    // An application's pooled connection to the old primary: it never learns about the promotion.
    const held = HistoryWriter.start({ name: 'held', address: () => old.endpoint, connection: 'hold' });
    let promotedSide: HistoryWriter | undefined;
    try {
      await waitUntil('the held connection has 20 acknowledged writes', () => held.acknowledged.length >= 20);

      const endSplit = faults.begin('split brain', `${promoted.host} promoted while ${old.host} keeps ${oldSideReplica.host}`);
      const splitAt = Date.now();
      await topology.admin(promoted).replicaof('NO', 'ONE');
      await topology.admin(promotedSideReplica).replicaof(promoted.host, promoted.port);
      await topology.waitLinked(promotedSideReplica, promoted);
      promotedSide = HistoryWriter.start({ name: 'promoted-side', address: () => promoted.endpoint });
      // Long enough for the sampler, whose resolution is one sampling period, to see both sides writable.
      const sampledAfterSplit = () => sampler.timelines().every((timeline) => timeline.samples.filter((sample) => sample.sentAt > splitAt).length >= 5);
      await waitUntil('both sides acknowledge writes and every member was sampled 5 times', () =>
        acknowledgedSentAfter(held, splitAt) >= 20 && promotedSide!.acknowledged.length >= 20 && sampledAfterSplit(),
      );

      // The old primary rejoins as a replica: its full sync from the promoted server drops what it acknowledged alone.
      await topology.admin(old).replicaof(promoted.host, promoted.port);
      await topology.admin(oldSideReplica).replicaof(promoted.host, promoted.port);
      await Promise.all([topology.waitLinked(old, promoted), topology.waitLinked(oldSideReplica, promoted)]);
      endSplit();

      const result = await checkHistory({ writers: [held, promotedSide], sampler, finalPrimary: promoted.endpoint, faults });
      expect(result.maxWritablePrimaries).toBe(2);
      expect(result.maxWritablePrimariesWindow?.members).toEqual(['s0', 's1']);
      expect(result.lost).toBeGreaterThan(0);
      // Every write the old primary acknowledged after the split is gone (and maybe a few from before it, which
      // WAIT 1 saw on the old side's replica only); nothing the promoted side acknowledged is.
      expect(result.lostWrites.every((write) => write.writer === 'held' && write.server === `${old.host}:${old.port}`)).toBe(true);
      expect(result.lost).toBeGreaterThanOrEqual(acknowledgedSentAfter(held, splitAt));

      let failure: unknown;
      try {
        assertHistory(result);
      } catch (error) {
        failure = error;
      }
      expect(failure).toBeInstanceOf(HistoryViolationError);
      const message = (failure as Error).message;
      expect(message).toContain(`${result.lost} of ${result.acknowledged} acknowledged writes lost`);
      expect(message).toContain(result.lostWrites[0]!.key);
      expect(message).toContain('during split brain');
      expect(message).toContain('2 writable primaries at once');
    } finally {
      await Promise.all([held.stop(), promotedSide?.stop(), sampler.stop()]);
      await topology.stop();
    }
  });

  it('reports no lost write and one writable primary across a planned FAILOVER, with WAIT and min-replicas writers', async () => {
    const topology = await startTopology(2, { 'min-replicas-to-write': '1', 'min-replicas-max-lag': '10' });
    const [old, target] = topology.servers as [RedisServerProcess, RedisServerProcess];
    const faults = new FaultTimeline();
    const sampler = RoleSampler.start({ members: topology.members, intervalMilliseconds: 20 });
    const address = async () => (await currentPrimary(topology)).endpoint;
    const waitWriter = HistoryWriter.start({ name: 'wait', address });
    const minReplicasWriter = HistoryWriter.start({ name: 'min-replicas', acknowledgement: 'min-replicas', address });
    try {
      await waitUntil('both writers have 20 acknowledged writes', () => waitWriter.acknowledged.length >= 20 && minReplicasWriter.acknowledged.length >= 20);
      const endFailover = faults.begin('FAILOVER TO', target.host);
      await topology.admin(old).call('FAILOVER', 'TO', target.host, String(target.port), 'TIMEOUT', '5000');
      await waitUntil('the target is the primary', async () => (await currentPrimary(topology)) === target);
      await topology.waitLinked(old, target);
      endFailover();
      const healedAt = Date.now();
      await waitUntil('both writers acknowledge 20 writes on the new primary', () =>
        acknowledgedSentAfter(waitWriter, healedAt) >= 20 && acknowledgedSentAfter(minReplicasWriter, healedAt) >= 20,
      );

      const result = await checkHistory({ writers: [waitWriter, minReplicasWriter], sampler, finalPrimary: target.endpoint, faults });
      assertHistory(result, { lost: 0, maxWritablePrimaries: 1 });
      expect({ lost: result.lost, maxWritablePrimaries: result.maxWritablePrimaries }).toEqual({ lost: 0, maxWritablePrimaries: 1 });
      expect(result.acknowledged).toBeGreaterThanOrEqual(80);
      // Both writers reached both servers: the checker saw writes on each side of the handover.
      for (const writer of [waitWriter, minReplicasWriter]) {
        expect(new Set(writer.acknowledged.map((write) => write.server))).toEqual(new Set([`${old.host}:${old.port}`, `${target.host}:${target.port}`]));
      }
    } finally {
      await Promise.all([waitWriter.stop(), minReplicasWriter.stop(), sampler.stop()]);
      await topology.stop();
    }
  });

  it('does not count an OK as acknowledged in min-replicas mode when the primary does not enforce min-replicas-to-write', async () => {
    const topology = await startTopology(2);
    const writer = HistoryWriter.start({ address: () => topology.servers[0]!.endpoint, acknowledgement: 'min-replicas' });
    try {
      await waitUntil('20 writes went through', () => writer.unacknowledgedWrites >= 20);
      await writer.stop();
      expect(writer.acknowledged).toEqual([]);
      expect(writer.failedWrites).toBe(0);
    } finally {
      await writer.stop();
      await topology.stop();
    }
  });

  it('samples a primary that lost its good replicas as not writable, and keeps sampling it while a replica is frozen', async () => {
    const topology = await startTopology(2, { 'min-replicas-to-write': '1', 'min-replicas-max-lag': '1' });
    const [primary, replica] = topology.servers as [RedisServerProcess, RedisServerProcess];
    const sampler = RoleSampler.start({ members: topology.members, intervalMilliseconds: 20, timeoutMilliseconds: 200 });
    const lastSample = (member: string) => sampler.timelines().find((timeline) => timeline.member === member)?.samples.at(-1);
    try {
      await waitUntil('the primary is sampled writable', () => lastSample('s0')?.state === 'writable');
      await replica.freeze();
      const frozenAt = Date.now();
      await waitUntil('the primary is sampled not writable for want of a good replica', () => lastSample('s0')?.detail.includes('NOREPLICAS'), {
        timeoutMilliseconds: 15_000,
      });
      const thawedAt = Date.now();
      await replica.thaw();
      await waitUntil('the primary is sampled writable again', () => lastSample('s0')?.state === 'writable', { timeoutMilliseconds: 15_000 });
      await sampler.stop();

      const [primarySamples, replicaSamples] = ['s0', 's1'].map((member) =>
        sampler.timelines().find((timeline) => timeline.member === member)!.samples.filter((sample) => sample.sentAt >= frozenAt && sample.receivedAt < thawedAt),
      );
      expect(replicaSamples!.every((sample) => sample.state === 'unanswered')).toBe(true);
      // A sampler that waited on the frozen replica would sample the primary once per timed-out replica sample.
      expect(replicaSamples!.length).toBeGreaterThan(0);
      expect(primarySamples!.length).toBeGreaterThanOrEqual(3 * replicaSamples!.length);
      const summary = sampler.summary();
      expect(summary.maxWritablePrimaries).toBe(1);
      // The window without a writable primary opened after the freeze and closed after the thaw.
      const duringFreeze = longestWithoutWritable(sampler.timelines(), frozenAt, summary.stoppedAt)!;
      expect(duringFreeze.from).toBeGreaterThan(frozenAt);
      expect(duringFreeze.from).toBeLessThan(thawedAt);
      expect(duringFreeze.to).toBeGreaterThan(thawedAt);
      expect(summary.longestNoWritablePrimaryMilliseconds).toBeGreaterThanOrEqual(duringFreeze.to - duringFreeze.from);
      expect(primary.running).toBe(true);
    } finally {
      await replica.thaw();
      await sampler.stop();
      await topology.stop();
    }
  });
});
