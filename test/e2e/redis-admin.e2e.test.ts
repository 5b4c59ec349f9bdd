import Redis from 'ioredis';
import {
  RedisAdmin,
  RedisCommandError,
  RedisUnreachableError,
  type ReachableRedisObservation,
  type RedisEndpoint,
} from '../../operator/redis';
import { allocateLoopbackHosts } from '../support/loopback-hosts';
import { startRedisServers, type RedisServerProcess } from '../support/redis-process';
import { waitUntil } from '../support/wait-until';

jest.setTimeout(30_000);

let servers: RedisServerProcess[];
let admin: RedisAdmin;
const clients: Redis[] = [];

beforeAll(async () => {
  servers = await startRedisServers(await allocateLoopbackHosts(3));
  admin = new RedisAdmin();
});

afterAll(async () => {
  clients.forEach((client) => client.disconnect());
  await admin?.close();
  await Promise.all((servers ?? []).map((server) => server.stop()));
});

function server(index: number): RedisServerProcess {
  return servers[index]!;
}

function clientOf(target: RedisServerProcess): Redis {
  const client = new Redis({ host: target.host, port: target.port, password: target.password, lazyConnect: true });
  clients.push(client);
  return client;
}

async function reachable(endpoint: RedisEndpoint): Promise<ReachableRedisObservation> {
  const observation = await admin.probe(endpoint);
  if (!observation.reachable) {
    throw observation.error;
  }
  return observation;
}

/** Makes `primary` the primary of `replicas` and waits until each is online and caught up. */
async function formTopology(primary: RedisServerProcess, replicas: readonly RedisServerProcess[]): Promise<void> {
  if ((await reachable(primary.endpoint)).role !== 'primary') {
    await admin.promoteToPrimary(primary.endpoint);
  }
  for (const replica of replicas) {
    await admin.makeReplicaOf(replica.endpoint, primary.host, primary.port);
  }
  await waitUntil(`${replicas.length} replicas of ${primary.host} are online and caught up`, async () => {
    const observed = await reachable(primary.endpoint);
    const online = observed.connectedReplicas.filter(
      (replica) => replica.state === 'online' && replicas.some((expected) => expected.host === replica.ip),
    );
    if (online.length !== replicas.length) {
      return false;
    }
    const offsets = await Promise.all(replicas.map(async (replica) => (await reachable(replica.endpoint)).offset));
    return offsets.every((offset) => offset === observed.offset);
  });
}

describe('probe', () => {
  beforeAll(() => formTopology(server(0), [server(1), server(2)]));

  it('reports a primary with its replicas under their own loopback addresses', async () => {
    const primary = await reachable(server(0).endpoint);
    expect(primary).toMatchObject({ role: 'primary', loading: false, minReplicasToWrite: 0 });
    expect(primary.connectedReplicas.map((replica) => replica.ip).sort()).toEqual(
      [server(1).host, server(2).host].sort(),
    );
  });

  it('reports a replica with its primary, a live link and the primary offset', async () => {
    const primary = await reachable(server(0).endpoint);
    const replica = await reachable(server(1).endpoint);
    expect(replica).toMatchObject({
      role: 'replica',
      primaryHost: server(0).host,
      primaryPort: 6379,
      primaryLinkUp: true,
      replicationId: primary.replicationId,
      offset: primary.offset,
    });
    expect(replica.primaryLastIoSecondsAgo).toBeLessThanOrEqual(1);
  });

  it('reports an address where nothing listens as unreachable, quickly', async () => {
    const [nobody] = await allocateLoopbackHosts(1);
    const startedAt = Date.now();
    const observation = await admin.probe({ host: nobody!, password: 'x' });
    expect(observation).toMatchObject({ reachable: false, error: expect.any(RedisUnreachableError) });
    expect(Date.now() - startedAt).toBeLessThan(500);
  });

  it('reports a wrong password as an unreachable observation carrying the error reply', async () => {
    const observation = await admin.probe({ ...server(0).endpoint, password: 'wrong' });
    expect(observation.reachable).toBe(false);
    expect(!observation.reachable && observation.error).toBeInstanceOf(RedisCommandError);
  });

  it('times out on a frozen process instead of hanging, and sees it again once thawed', async () => {
    const frozen = server(2);
    await frozen.freeze();
    try {
      const startedAt = Date.now();
      const observation = await admin.probe(frozen.endpoint);
      expect(observation).toMatchObject({ reachable: false, error: expect.any(RedisUnreachableError) });
      expect(Date.now() - startedAt).toBeLessThan(1500);
    } finally {
      await frozen.thaw();
    }
    await waitUntil('the thawed server answers', async () => (await admin.probe(frozen.endpoint)).reachable);
  });
});

describe('replication commands', () => {
  beforeAll(() => formTopology(server(0), [server(1), server(2)]));

  it('sets and reads configuration live, and the probe sees it', async () => {
    await admin.configSet(server(1).endpoint, { 'min-replicas-to-write': 1, 'min-replicas-max-lag': 5 });
    expect(await admin.configGet(server(1).endpoint, ['min-replicas-to-write', 'min-replicas-max-lag'])).toEqual({
      'min-replicas-to-write': '1',
      'min-replicas-max-lag': '5',
    });
    expect((await reachable(server(1).endpoint)).minReplicasToWrite).toBe(1);
    await admin.configSet(server(1).endpoint, { 'min-replicas-to-write': 0 });
  });

  it('raises a typed command error, with the reply and its cause, for a parameter Redis rejects', async () => {
    const failure = admin.configSet(server(1).endpoint, { 'no-such-parameter': 1 });
    await expect(failure).rejects.toBeInstanceOf(RedisCommandError);
    await expect(failure).rejects.toMatchObject({ command: 'CONFIG SET', code: 'ERR', cause: expect.any(Error) });
  });

  it('waits until a replica has applied the offset of a write', async () => {
    await clientOf(server(0)).set('waited-for', 'yes');
    const primary = await reachable(server(0).endpoint);
    const result = await admin.waitForReplicaOffset(server(1).endpoint, primary.offset, { timeoutMilliseconds: 5000 });
    expect(result).toMatchObject({ reached: true });
    expect(await clientOf(server(1)).get('waited-for')).toBe('yes');
  });

  it('says a replica already following the primary was left alone, or reconnects it when asked', async () => {
    expect(await admin.makeReplicaOf(server(1).endpoint, server(0).host, 6379)).toBe('already-following');
    expect(
      await admin.makeReplicaOf(server(1).endpoint, server(0).host, 6379, { reconnectIfAlreadyFollowing: true }),
    ).toBe('reconnected');
    await formTopology(server(0), [server(1), server(2)]);
  });

  it('promotes a replica that keeps its data and offset', async () => {
    await clientOf(server(0)).set('before-promotion', 'kept');
    const primary = await reachable(server(0).endpoint);
    await admin.waitForReplicaOffset(server(2).endpoint, primary.offset);
    await admin.promoteToPrimary(server(2).endpoint);
    const promoted = await reachable(server(2).endpoint);
    expect(promoted).toMatchObject({ role: 'primary', offset: primary.offset });
    expect(await clientOf(server(2)).get('before-promotion')).toBe('kept');
    await formTopology(server(0), [server(1), server(2)]);
  });
});

describe('switchover', () => {
  it.each(['failover-command', 'pause-and-promote'] as const)(
    'moves the primary role with %s without losing a write and repoints the other replica',
    async (method) => {
      await formTopology(server(0), [server(1), server(2)]);
      const writer = clientOf(server(0));
      for (let index = 0; index < 50; index++) {
        await writer.set(`switchover-${method}-${index}`, String(index));
      }
      const result = await admin.switchover({
        primary: server(0).endpoint,
        target: server(1).endpoint,
        otherReplicas: [server(2).endpoint],
        timeoutMilliseconds: 3000,
        method,
      });
      expect(result).toMatchObject({
        outcome: 'completed',
        method,
        newPrimary: `${server(1).host}:6379`,
        replicasNotRepointed: [],
      });
      expect(await reachable(server(0).endpoint)).toMatchObject({ role: 'replica', primaryHost: server(1).host });
      expect(await reachable(server(2).endpoint)).toMatchObject({ role: 'replica', primaryHost: server(1).host });
      expect(await clientOf(server(1)).get(`switchover-${method}-49`)).toBe('49');
      await formTopology(server(0), [server(1), server(2)]);
    },
  );

  it('aborts, leaving the primary in charge, when the target is not its replica', async () => {
    await formTopology(server(0), [server(1)]);
    await admin.promoteToPrimary(server(2).endpoint);
    const result = await admin.switchover({ primary: server(0).endpoint, target: server(2).endpoint });
    expect(result).toMatchObject({ outcome: 'aborted', method: 'pause-and-promote', code: 'target-not-ready', reason: expect.any(String) });
    expect(await reachable(server(0).endpoint)).toMatchObject({ role: 'primary' });
    await formTopology(server(0), [server(1), server(2)]);
  });
});

describe('connection pool', () => {
  it('keeps one connection per server and closes them all on shutdown', async () => {
    const pooled = new RedisAdmin();
    await Promise.all([pooled.probe(server(0).endpoint), pooled.probe(server(0).endpoint), pooled.probe(server(1).endpoint)]);
    expect(pooled.pool.size).toBe(2);
    await pooled.close();
    expect(pooled.pool.size).toBe(0);
    await expect(pooled.promoteToPrimary(server(0).endpoint)).rejects.toBeInstanceOf(RedisUnreachableError);
  });
});
