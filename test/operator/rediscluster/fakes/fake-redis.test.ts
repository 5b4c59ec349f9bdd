import type { ReachableRedisObservation } from '../../../../operator/redis/observation';
import { CallJournal } from './call-journal';
import { FakeRedis } from './fake-redis';
import { fakeRedisServer } from './fake-redis-server';

const PRIMARY = { host: '10.0.0.10', port: 6379, password: 'pw' };
const REPLICA = { host: '10.0.0.11', port: 6379, password: 'pw' };

function fleet(): FakeRedis {
  const redis = new FakeRedis(new CallJournal());
  redis.add(fakeRedisServer(PRIMARY.host, { passwords: new Set(['pw']), role: 'primary', replicationId: 'history-a', offset: 500, keys: 10 }));
  redis.add(fakeRedisServer(REPLICA.host, { passwords: new Set(['pw']), role: 'replica', primaryHost: PRIMARY.host, primaryPort: 6379 }));
  return redis;
}

async function reachable(redis: FakeRedis, endpoint: typeof PRIMARY): Promise<ReachableRedisObservation> {
  const observation = await redis.probe(endpoint);
  if (!observation.reachable) throw new Error(`expected ${endpoint.host} to answer: ${observation.error.message}`);
  return observation;
}

describe('FakeRedis (the Redis fleet of the reconciler suite)', () => {
  it('reports a linked replica at its primary position, through the real INFO parser', async () => {
    const replica = await reachable(fleet(), REPLICA);
    expect(replica).toMatchObject({ role: 'replica', primaryHost: PRIMARY.host, primaryLinkUp: true, offset: 500, position: { kind: 'known', replicationId: 'history-a', offset: 500 } });
  });

  it('lists the linked replicas of a primary', async () => {
    const primary = await reachable(fleet(), PRIMARY);
    expect(primary.connectedReplicas).toEqual([{ ip: REPLICA.host, port: 6379, state: 'online', offset: 500, lagSeconds: 0 }]);
  });

  it('gives a promoted replica a new replication id and keeps the old one as its second history', async () => {
    const redis = fleet();
    await redis.promoteToPrimary(REPLICA);
    const promoted = await reachable(redis, REPLICA);
    expect(promoted.role).toBe('primary');
    expect(promoted.position).toMatchObject({ kind: 'known', secondaryReplicationId: 'history-a', offset: 500 });
    expect(promoted.replicationId).not.toBe('history-a');
  });

  it('leaves a stuck link down on REPLICAOF to the primary already followed, and reconnects it when asked to', async () => {
    const redis = fleet();
    redis.server(REPLICA.host).stuckLinkDownSeconds = 45;
    await expect(redis.makeReplicaOf(REPLICA, PRIMARY.host, 6379)).resolves.toBe('already-following');
    expect((await reachable(redis, REPLICA)).primaryLinkDownSinceSeconds).toBe(45);
    await expect(redis.makeReplicaOf(REPLICA, PRIMARY.host, 6379, { reconnectIfAlreadyFollowing: true })).resolves.toBe('reconnected');
    expect((await reachable(redis, REPLICA)).primaryLinkUp).toBe(true);
  });

  it('refuses a CONFIG SET of a refused parameter with a RedisCommandError', async () => {
    const redis = fleet();
    redis.server(PRIMARY.host).refusedConfig.set('maxmemory-policy', 'ERR Invalid argument');
    await expect(redis.configSet(PRIMARY, { 'maxmemory-policy': 'nonsense' })).rejects.toMatchObject({ name: 'RedisCommandError', reply: 'ERR Invalid argument' });
  });

  it('answers a wrong password with -WRONGPASS as an observation of a live server', async () => {
    const observation = await fleet().probe({ ...PRIMARY, password: 'other' });
    expect(observation).toMatchObject({ reachable: false, error: { name: 'RedisCommandError' } });
  });

  it('reports an unreachable server as an observation, never as an exception', async () => {
    const redis = fleet();
    redis.server(PRIMARY.host).reachability = 'unreachable';
    await expect(redis.probe(PRIMARY)).resolves.toMatchObject({ reachable: false, error: { name: 'RedisUnreachableError' } });
  });

  it('reports a restart from AOF as holding keys at an unknown position', async () => {
    const redis = fleet();
    redis.restart(REPLICA.host, 'aof');
    expect((await reachable(redis, REPLICA)).position).toMatchObject({ kind: 'unknown' });
  });
});
