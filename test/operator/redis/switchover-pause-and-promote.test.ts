import { RedisCommandError, RedisUnreachableError } from '../../../operator/redis/errors';
import { RedisOperationAbortedError } from '../../../operator/redis/operation-aborted';
import type { SwitchoverStep } from '../../../operator/redis/switchover';
import { pauseAndPromote } from '../../../operator/redis/switchover-pause-and-promote';
import { FakeSwitchoverServers } from './fake-switchover-servers';
import { OTHER, PRIMARY, TARGET } from './replication-info-builders';

function run(servers: FakeSwitchoverServers, options: { timeoutMilliseconds?: number; onStep?: (step: SwitchoverStep) => void } = {}) {
  return pauseAndPromote(servers, {
    primary: PRIMARY,
    target: TARGET,
    otherReplicas: [OTHER],
    timeoutMilliseconds: options.timeoutMilliseconds ?? 1000,
    onStep: options.onStep,
  });
}

const unreachable = (host: string) => new RedisUnreachableError(`${host}:6379`, 'Command timed out');

describe('pauseAndPromote', () => {
  it('detaches the old primary and the other replica before promoting the target, and unpauses with the repoint', async () => {
    const servers = new FakeSwitchoverServers();
    servers.clientsInWait = ['7'];
    const result = await run(servers);
    expect(servers.log).toEqual([
      'INFO primary',
      'INFO target',
      'INFO target', // caught up while writes flow
      'PAUSE primary 2000',
      'INFO target', // drained
      'CLIENT LIST primary',
      'DETACH primary unblock:7',
      'DETACH other',
      'PROMOTE target',
      'REPOINT+UNPAUSE primary target',
      'REPLICAOF other target',
      'INFO target',
    ]);
    expect(result).toMatchObject({ outcome: 'completed', method: 'pause-and-promote', newPrimary: '10.0.0.2:6379', offset: 1000, replicasNotRepointed: [] });
  });

  it('reports each step as it begins', async () => {
    const steps: SwitchoverStep[] = [];
    await run(new FakeSwitchoverServers(), { onStep: (step) => steps.push(step) });
    expect(steps).toEqual(['checking', 'catching-up', 'pausing', 'draining', 'demoting', 'detaching', 'promoting', 'repointing', 'verifying']);
  });

  it('changes nothing when the target does not follow the primary', async () => {
    const servers = new FakeSwitchoverServers();
    servers.targetOffset = () => unreachable(TARGET.host);
    const result = await run(servers);
    expect(result).toMatchObject({ outcome: 'aborted', code: 'target-not-ready', writePauseMilliseconds: 0 });
    expect(servers.log).toEqual(['INFO primary', 'INFO target']);
  });

  it('never pauses writes when the target cannot catch up while they flow', async () => {
    const servers = new FakeSwitchoverServers();
    servers.targetOffset = () => 400;
    const result = await run(servers, { timeoutMilliseconds: 30 });
    expect(result).toMatchObject({ outcome: 'aborted', code: 'target-lagging', writePauseMilliseconds: 0, reason: expect.stringContaining('offset 400 of 1000') });
    expect(servers.log.filter((command) => !command.startsWith('INFO'))).toEqual([]);
  });

  it('resumes writes on the old primary, changing no role, when the target does not drain within the timeout', async () => {
    const servers = new FakeSwitchoverServers();
    servers.pausedOffset = 1200;
    const result = await run(servers, { timeoutMilliseconds: 40 });
    expect(result).toMatchObject({ outcome: 'aborted', code: 'target-not-caught-up', reason: expect.stringContaining('while writes were paused') });
    if (result.outcome !== 'aborted') throw new Error('expected an abort');
    expect(result.writePauseMilliseconds).toBeGreaterThanOrEqual(35);
    expect(servers.log.at(-1)).toBe('UNPAUSE primary');
    expect(servers.log.filter((command) => /DETACH|PROMOTE|REPLICAOF|REPOINT/.test(command))).toEqual([]);
  });

  it('drains again when the old primary added to the stream before it was detached', async () => {
    const servers = new FakeSwitchoverServers();
    servers.detachedOffset = 1014; // a replica PING sent between the pause and the detach
    servers.targetOffset = (read) => (read < 3 ? 1000 : 1014);
    const result = await run(servers);
    expect(result).toMatchObject({ outcome: 'completed', offset: 1014 });
    const detachedAt = servers.log.indexOf('DETACH primary');
    expect(servers.log.slice(detachedAt, detachedAt + 3)).toEqual(['DETACH primary', 'INFO target', 'DETACH other']);
  });

  it('gives the old primary its role back when the target cannot reach its final offset', async () => {
    const servers = new FakeSwitchoverServers();
    servers.detachedOffset = 1014;
    const result = await run(servers, { timeoutMilliseconds: 40 });
    expect(result).toMatchObject({ outcome: 'aborted', code: 'target-not-caught-up' });
    expect(servers.log.at(-1)).toBe('RESTORE+UNPAUSE primary');
    expect(servers.log).not.toContain('PROMOTE target');
  });

  it('restores the old primary when detaching it was refused', async () => {
    const servers = new FakeSwitchoverServers();
    servers.failures.set('detach primary', new RedisCommandError('10.0.0.1:6379', 'REPLICAOF', 'ERR something'));
    const result = await run(servers);
    expect(result).toMatchObject({ outcome: 'aborted', code: 'primary-not-ready' });
    expect(servers.log.slice(-2)).toEqual(['DETACH primary', 'RESTORE+UNPAUSE primary']);
  });

  it('restores the old primary and re-attaches the detached replica when the target refuses promotion', async () => {
    const servers = new FakeSwitchoverServers();
    servers.failures.set('promote target', new RedisCommandError('10.0.0.2:6379', 'REPLICAOF NO ONE', 'ERR refused'));
    const result = await run(servers);
    expect(result).toMatchObject({ outcome: 'aborted', code: 'promotion-refused' });
    expect(servers.log.slice(-3)).toEqual(['PROMOTE target', 'RESTORE+UNPAUSE primary', 'REPLICAOF other primary']);
  });

  it('throws, sending nothing more, when the promotion times out and its outcome is unknown', async () => {
    const servers = new FakeSwitchoverServers();
    servers.failures.set('promote target', unreachable(TARGET.host));
    await expect(run(servers)).rejects.toBeInstanceOf(RedisUnreachableError);
    expect(servers.log.at(-1)).toBe('PROMOTE target');
  });

  it('completes and lists the servers it could not repoint', async () => {
    const servers = new FakeSwitchoverServers();
    servers.failures.set('replicaof other', unreachable(OTHER.host));
    servers.failures.set('repoint primary', unreachable(PRIMARY.host));
    const result = await run(servers);
    expect(result).toMatchObject({
      outcome: 'completed',
      replicasNotRepointed: [expect.stringMatching(/^10\.0\.0\.1:6379: /), expect.stringMatching(/^10\.0\.0\.3:6379: /)],
    });
  });

  it('still promotes when another replica cannot be detached: the old primary is read-only already', async () => {
    const servers = new FakeSwitchoverServers();
    servers.failures.set('detach other', unreachable(OTHER.host));
    servers.failures.set('replicaof other', unreachable(OTHER.host));
    const result = await run(servers);
    expect(result).toMatchObject({ outcome: 'completed', replicasNotRepointed: [expect.stringMatching(/^10\.0\.0\.3:6379: /)] });
    expect(servers.log.indexOf('DETACH primary')).toBeLessThan(servers.log.indexOf('PROMOTE target'));
  });

  it('does not hold the pause for a replica that never confirms its detach', async () => {
    const servers = new FakeSwitchoverServers();
    servers.detachHangs.add('other');
    const result = await run(servers);
    expect(result).toMatchObject({ outcome: 'completed', replicasNotRepointed: [] });
    if (result.outcome !== 'completed') throw new Error('expected completion');
    expect(result.writePauseMilliseconds).toBeLessThan(400);
    expect(servers.log.slice(servers.log.indexOf('DETACH other'))).toEqual(['DETACH other', 'PROMOTE target', 'REPOINT+UNPAUSE primary target', 'REPLICAOF other target', 'INFO target']);
  });

  it('reports a server without CLIENT PAUSE WRITE as pause-refused', async () => {
    const servers = new FakeSwitchoverServers();
    servers.failures.set('pause primary', new RedisCommandError('10.0.0.1:6379', 'CLIENT PAUSE', 'ERR syntax error'));
    const result = await run(servers);
    expect(result).toMatchObject({ outcome: 'aborted', code: 'pause-refused', writePauseMilliseconds: 0 });
  });

  it('lets an abort through without sending anything more, not even the unpause', async () => {
    const servers = new FakeSwitchoverServers();
    servers.pausedOffset = 1200;
    // Reads 0 and 1 check and catch up; read 2, while writes are paused, finds the signal aborted.
    servers.targetOffset = (read) => (read < 2 ? 1000 : new RedisOperationAbortedError('INFO replication', '10.0.0.2:6379'));
    await expect(run(servers)).rejects.toBeInstanceOf(RedisOperationAbortedError);
    expect(servers.log.slice(-2)).toEqual(['PAUSE primary 2000', 'INFO target']);
  });
});
