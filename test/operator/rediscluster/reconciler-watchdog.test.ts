// client-node is ESM-only; jest cannot load it, Node can (see nativeRequire). The watchdog imports the runtime's index.
jest.mock('@kubernetes/client-node', () =>
  jest.requireActual<typeof import('../runtime/support/native-require')>('../runtime/support/native-require').nativeRequire('@kubernetes/client-node'),
);

import type { ObjectKey } from '../../../operator/runtime/kubernetes-object';
import { PrimaryWatchdog } from '../../../operator/rediscluster/primary-watchdog';
import { CallJournal } from './fakes/call-journal';
import { FakeRedis } from './fakes/fake-redis';
import { fakeRedisServer } from './fakes/fake-redis-server';

const KEY: ObjectKey = { namespace: 'shop', name: 'cache' };
const PRIMARY = { host: '10.0.0.10', port: 6379, password: 'pw' };
const INTERVAL_MILLISECONDS = 500;

/** The watchdog the reconciler hands primaries to, over a fake Redis, with jest's fake timers driving its interval. */
function watchdogOver(admin: Pick<FakeRedis, 'probe'>): { watchdog: PrimaryWatchdog; enqueued: ObjectKey[]; warnings: unknown[] } {
  const enqueued: ObjectKey[] = [];
  const warnings: unknown[] = [];
  const watchdog = new PrimaryWatchdog(admin, (key) => enqueued.push(key), INTERVAL_MILLISECONDS, (_message, error) => warnings.push(error));
  watchdog.watch(KEY, PRIMARY);
  watchdog.start();
  return { watchdog, enqueued, warnings };
}

function fleetWithPrimary(): FakeRedis {
  const redis = new FakeRedis(new CallJournal());
  redis.add(fakeRedisServer(PRIMARY.host, { passwords: new Set(['pw']), role: 'primary', replicationId: 'history-a', offset: 100 }));
  return redis;
}

describe('PrimaryWatchdog between reconciles (issue item 7)', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('enqueues the cluster as soon as its primary stops answering', async () => {
    const redis = fleetWithPrimary();
    const { watchdog, enqueued } = watchdogOver(redis);
    redis.server(PRIMARY.host).reachability = 'unreachable';

    await jest.advanceTimersByTimeAsync(INTERVAL_MILLISECONDS);
    watchdog.stop();

    expect(enqueued).toEqual([KEY]);
  });

  it('enqueues nothing while the primary answers as primary', async () => {
    const { watchdog, enqueued } = watchdogOver(fleetWithPrimary());

    await jest.advanceTimersByTimeAsync(5 * INTERVAL_MILLISECONDS);
    watchdog.stop();

    expect(enqueued).toEqual([]);
  });

  it('reports a probe that fails with a non-Redis error and enqueues the cluster, instead of an unhandled rejection', async () => {
    const bug = new TypeError('cannot read properties of undefined');
    const { watchdog, enqueued, warnings } = watchdogOver({ probe: () => Promise.reject(bug) });

    await jest.advanceTimersByTimeAsync(INTERVAL_MILLISECONDS);
    watchdog.stop();

    expect(warnings).toEqual([bug]);
    expect(enqueued).toEqual([KEY]);
  });

  it('stops probing a cluster the reconciler forgot', async () => {
    const redis = fleetWithPrimary();
    const { watchdog, enqueued } = watchdogOver(redis);
    redis.server(PRIMARY.host).reachability = 'unreachable';
    watchdog.forget(KEY);

    await jest.advanceTimersByTimeAsync(2 * INTERVAL_MILLISECONDS);
    watchdog.stop();

    expect(enqueued).toEqual([]);
  });
});
