import { RedisUnreachableError } from '../../../operator/redis/errors';
import { appliedOffset, switchoverReadiness } from '../../../operator/redis/switchover-readiness';
import { PRIMARY, TARGET, primaryReplication, replicaReplication } from './replication-info-builders';

function readiness(primary: ReturnType<typeof primaryReplication> | Error, target: ReturnType<typeof replicaReplication> | Error) {
  return switchoverReadiness({ endpoint: PRIMARY, replication: primary }, { endpoint: TARGET, replication: target });
}

describe('switchoverReadiness', () => {
  it('is ready when the target follows the primary with its link up, and reports both offsets', () => {
    expect(readiness(primaryReplication(900), replicaReplication(850))).toEqual({ ready: true, primaryOffset: 900, targetOffset: 850 });
  });

  it('refuses a target that is the primary itself', () => {
    const result = switchoverReadiness(
      { endpoint: PRIMARY, replication: primaryReplication(900) },
      { endpoint: { host: PRIMARY.host }, replication: primaryReplication(900) },
    );
    expect(result).toMatchObject({ ready: false, code: 'target-not-ready', reason: expect.stringContaining('the primary itself') });
  });

  it('refuses when the primary did not answer', () => {
    const error = new RedisUnreachableError('10.0.0.1:6379', 'connect ECONNREFUSED');
    expect(readiness(error, replicaReplication(850))).toMatchObject({ ready: false, code: 'primary-not-ready' });
  });

  it('refuses when the primary is a replica', () => {
    expect(readiness(replicaReplication(900, TARGET), replicaReplication(850))).toMatchObject({ ready: false, code: 'primary-not-ready' });
  });

  it('refuses while a FAILOVER runs on the primary', () => {
    const primary = primaryReplication(900, { failoverState: 'waiting-for-sync' });
    expect(readiness(primary, replicaReplication(850))).toMatchObject({ ready: false, code: 'primary-not-ready', reason: expect.stringContaining('waiting-for-sync') });
  });

  it('refuses when the target did not answer', () => {
    const error = new RedisUnreachableError('10.0.0.2:6379', 'Command timed out');
    expect(readiness(primaryReplication(900), error)).toMatchObject({ ready: false, code: 'target-not-ready', reason: expect.stringContaining('timed out') });
  });

  it('refuses a target that follows another server, naming it', () => {
    const target = replicaReplication(850, { host: '10.0.0.9', port: 6379 });
    expect(readiness(primaryReplication(900), target)).toMatchObject({ ready: false, code: 'target-not-ready', reason: expect.stringContaining('follows 10.0.0.9:6379') });
  });

  it('refuses a target that follows the primary on another port', () => {
    const target = replicaReplication(850, { host: PRIMARY.host, port: 6380 });
    expect(readiness(primaryReplication(900), target)).toMatchObject({ ready: false, code: 'target-not-ready' });
  });

  it('refuses a target that is itself a primary', () => {
    expect(readiness(primaryReplication(900), primaryReplication(900))).toMatchObject({ ready: false, code: 'target-not-ready', reason: expect.stringContaining('is a primary') });
  });

  it('refuses a target whose link to the primary is down', () => {
    const target = replicaReplication(850, PRIMARY, { primaryLinkUp: false });
    expect(readiness(primaryReplication(900), target)).toMatchObject({ ready: false, code: 'target-not-ready', reason: expect.stringContaining('link') });
  });

  it('refuses a target in a full sync', () => {
    const target = replicaReplication(0, PRIMARY, { syncInProgress: true });
    expect(readiness(primaryReplication(900), target)).toMatchObject({ ready: false, code: 'target-not-ready', reason: expect.stringContaining('full sync') });
  });

  it('refuses a target on another replication history, whose offset means nothing here', () => {
    const target = replicaReplication(850, PRIMARY, { replicationId: 'b'.repeat(40) });
    expect(readiness(primaryReplication(900), target)).toMatchObject({ ready: false, code: 'target-not-ready', reason: expect.stringContaining('replication id') });
  });
});

describe('appliedOffset', () => {
  it("is a primary's master_repl_offset", () => {
    expect(appliedOffset(primaryReplication(900))).toBe(900);
  });

  it("is a replica's applied offset, not what it read from the socket", () => {
    expect(appliedOffset(replicaReplication(850, PRIMARY, { receivedOffset: 870, replicationStreamOffset: 850 }))).toBe(850);
  });

  it('is 0 for a replica that never synced (placeholder slave_repl_offset:1)', () => {
    expect(appliedOffset(replicaReplication(1, PRIMARY, { replicationStreamOffset: 0 }))).toBe(0);
  });
});
