import { ReplyError } from 'ioredis';
import { memberStateFromReplies } from './member-state';

/** `INFO replication` of a Redis 7.0 primary (captured, with `\r\n` line ends), with some fields replaced. */
function primaryInfo(fields: Record<string, string | undefined> = {}): string {
  const base: Record<string, string | undefined> = {
    role: 'master',
    connected_slaves: '1',
    slave0: 'ip=127.0.3.9,port=6379,state=online,offset=1234,lag=0',
    min_slaves_good_slaves: undefined,
    master_failover_state: 'no-failover',
    master_replid: '9a5536e900eb1c1dcde07422a6af3b6d51e3d604',
    master_replid2: '0000000000000000000000000000000000000000',
    master_repl_offset: '1234',
    ...fields,
  };
  const lines = Object.entries(base).flatMap(([name, value]) => (value === undefined ? [] : [`${name}:${value}`]));
  return ['# Replication', ...lines, ''].join('\r\n');
}

const masterRole = { value: ['master', 1234, [['127.0.3.9', '6379', '1234']]] };
const config = (value: string) => ({ value: ['min-replicas-to-write', value] });

describe('memberStateFromReplies', () => {
  it('counts a master without min-replicas-to-write as writable, with its replication id', () => {
    expect(memberStateFromReplies(masterRole, { value: primaryInfo() }, config('0'))).toEqual({
      state: 'writable',
      detail: 'master without min-replicas-to-write, 1 replicas',
      replicationId: '9a5536e900eb1c1dcde07422a6af3b6d51e3d604',
    });
  });

  it('counts a master with enough good replicas as writable and one with too few as not writable', () => {
    expect(memberStateFromReplies(masterRole, { value: primaryInfo({ min_slaves_good_slaves: '1' }) }, config('1')).state).toBe('writable');
    expect(memberStateFromReplies(masterRole, { value: primaryInfo({ min_slaves_good_slaves: '0' }) }, config('1'))).toMatchObject({
      state: 'not-writable',
      detail: 'master with 0 of 1 good replicas (NOREPLICAS)',
    });
  });

  it('counts a master in the middle of a FAILOVER as not writable (its writes are paused)', () => {
    expect(memberStateFromReplies(masterRole, { value: primaryInfo({ master_failover_state: 'failover-in-progress' }) }, config('0')).state).toBe('not-writable');
  });

  it('counts a replica and a loading server as not writable', () => {
    expect(memberStateFromReplies({ value: ['slave', '127.0.3.8', 6379, 'connected', 1234] }, { value: '' }, config('1'))).toEqual({
      state: 'not-writable',
      detail: 'slave of 127.0.3.8:6379',
    });
    const loading = new ReplyError('LOADING Redis is loading the dataset in memory');
    expect(memberStateFromReplies({ error: loading }, { error: loading }, { error: loading }).state).toBe('not-writable');
  });

  it('reports a refused password as unanswered, not as a member that refuses writes', () => {
    const refused = new ReplyError('NOAUTH Authentication required.');
    expect(memberStateFromReplies({ error: refused }, { error: refused }, { error: refused })).toEqual({ state: 'unanswered', detail: refused.message });
  });

  it('takes the requirement as 0 when CONFIG GET fails, so the member can only count as writable', () => {
    const denied = new ReplyError("ERR unknown command 'CONFIG'");
    expect(memberStateFromReplies(masterRole, { value: primaryInfo({ min_slaves_good_slaves: '0' }) }, { error: denied }).state).toBe('writable');
  });
});
