import { RedisConnectionPool } from '../../../operator/redis/connection-pool';
import { RedisOperationAbortedError } from '../../../operator/redis/operation-aborted';
import { switchover } from '../../../operator/redis/switchover';
import { SwitchoverCommands } from '../../../operator/redis/switchover-commands';

// Nothing listens here: a command that were sent would fail as unreachable, not as aborted.
const NOWHERE = { host: '127.0.0.1', port: 1 };

describe('SwitchoverCommands', () => {
  it('sends nothing once the signal is aborted, not even a connect, and carries the reason', async () => {
    const pool = new RedisConnectionPool();
    const controller = new AbortController();
    controller.abort(new Error('lease lost'));
    const commands = new SwitchoverCommands(pool, controller.signal);
    const attempt = commands.promote(NOWHERE);
    await expect(attempt).rejects.toBeInstanceOf(RedisOperationAbortedError);
    await expect(attempt).rejects.toMatchObject({ name: 'AbortError', command: 'REPLICAOF NO ONE', cause: new Error('lease lost') });
    expect(pool.size).toBe(0);
    await pool.close();
  });
});

describe('switchover', () => {
  it.each(['pause-and-promote', 'failover-command'] as const)('with %s, issues no command under an aborted signal', async (method) => {
    const pool = new RedisConnectionPool();
    const controller = new AbortController();
    controller.abort();
    await expect(switchover(pool, { primary: NOWHERE, target: { ...NOWHERE, port: 2 }, method, signal: controller.signal })).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(pool.size).toBe(0);
    await pool.close();
  });

  it('ignores an observer that throws, so it cannot stop a switchover midway', async () => {
    const pool = new RedisConnectionPool();
    const steps: string[] = [];
    const result = await switchover(pool, {
      primary: NOWHERE,
      target: { ...NOWHERE, port: 2 },
      onStep: (step) => {
        steps.push(step);
        throw new Error('logger failed');
      },
    });
    expect(steps).toEqual(['checking']);
    expect(result).toMatchObject({ outcome: 'aborted', code: 'primary-not-ready' });
    await pool.close();
  });

  it('rejects a timeout that is not a positive integer', async () => {
    const pool = new RedisConnectionPool();
    await expect(switchover(pool, { primary: NOWHERE, target: NOWHERE, timeoutMilliseconds: 0 })).rejects.toThrow(RangeError);
    await pool.close();
  });
});
