import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  InfoParseError,
  observationFromInfo,
  parseInfo,
  parseLoading,
  parseReplicationInfo,
  parseServerInfo,
} from '../../../operator/redis';

/** Full `INFO` text captured from real Redis 7.0.15 servers by fixtures/capture.ts. */
function fixture(name: string): string {
  return readFileSync(join(__dirname, 'fixtures', `${name}.info.txt`), 'utf8');
}

function observe(name: string) {
  const text = fixture(name);
  return observationFromInfo(text, text, text, ['min-replicas-to-write', '0']);
}

describe('parseInfo', () => {
  it('splits the text into lower-cased sections of fields', () => {
    const sections = parseInfo(fixture('primary-with-two-replicas'));
    expect([...sections.keys()]).toEqual(
      expect.arrayContaining(['server', 'clients', 'memory', 'persistence', 'stats', 'replication', 'cpu', 'keyspace']),
    );
    expect(sections.get('server')?.get('redis_version')).toBe('7.0.15');
  });

  it('accepts both CRLF and LF line endings', () => {
    const lf = parseInfo('# Replication\nrole:master\n');
    const crlf = parseInfo('# Replication\r\nrole:master\r\n');
    expect(crlf).toEqual(lf);
  });

  it('keeps colons that are part of a value', () => {
    expect(parseInfo('# Server\nexecutable:/usr/bin/redis-server:x\n').get('server')?.get('executable')).toBe(
      '/usr/bin/redis-server:x',
    );
  });
});

describe('parseReplicationInfo', () => {
  it('reads a primary with two replicas, including each replica line', () => {
    const info = parseReplicationInfo(fixture('primary-with-two-replicas'));
    expect(info).toMatchObject({
      role: 'primary',
      replicationId: 'd2d0cfc794447c751596070d82dd7a9c65ff9d22',
      replicationStreamOffset: 834,
      appliedOffset: undefined,
      primaryHost: undefined,
      primaryLinkUp: false,
      failoverState: 'no-failover',
    });
    expect(info.connectedReplicas).toEqual([
      { ip: '127.0.9.46', port: 6379, state: 'online', offset: 834, lagSeconds: 0 },
      { ip: '127.0.9.47', port: 6379, state: 'online', offset: 783, lagSeconds: 0 },
    ]);
  });

  it('reads an online replica with its primary, link and offsets', () => {
    expect(parseReplicationInfo(fixture('replica-online'))).toMatchObject({
      role: 'replica',
      replicationId: 'd2d0cfc794447c751596070d82dd7a9c65ff9d22',
      primaryHost: '127.0.9.45',
      primaryPort: 6379,
      primaryLinkUp: true,
      primaryLastIoSecondsAgo: 0,
      primaryLinkDownSinceSeconds: undefined,
      appliedOffset: 834,
      receivedOffset: 834,
      syncInProgress: false,
      connectedReplicas: [],
    });
  });

  it('reports a replica whose primary died as link down with no last I/O time', () => {
    expect(parseReplicationInfo(fixture('replica-primary-down'))).toMatchObject({
      role: 'replica',
      primaryLinkUp: false,
      primaryLastIoSecondsAgo: undefined,
      primaryLinkDownSinceSeconds: 0,
      appliedOffset: 834,
    });
  });

  it('reads the -1 placeholders of a replica that never synced as unknown', () => {
    expect(parseReplicationInfo(fixture('replica-never-synced'))).toMatchObject({
      primaryHost: '127.0.9.254',
      primaryLinkUp: false,
      primaryLastIoSecondsAgo: undefined,
      primaryLinkDownSinceSeconds: undefined,
      replicationStreamOffset: 0,
    });
  });

  it('rejects text without a replication section', () => {
    expect(() => parseReplicationInfo('# Server\nrun_id:abc\n')).toThrow(InfoParseError);
  });

  it('rejects a role it does not know', () => {
    expect(() => parseReplicationInfo('# Replication\nrole:sentinel\n')).toThrow(/unexpected role/);
  });
});

describe('parseServerInfo and parseLoading', () => {
  it('reads the run id, version and uptime', () => {
    expect(parseServerInfo(fixture('replica-online'))).toEqual({
      runId: '50c7a2a309c1bab552c11f2f02b24f53445e40cd',
      redisVersion: '7.0.15',
      uptimeSeconds: expect.any(Number),
    });
  });

  it('reads whether the data set is loading', () => {
    expect(parseLoading(fixture('replica-online'))).toBe(false);
    expect(parseLoading('# Persistence\nloading:1\n')).toBe(true);
  });
});

describe('observationFromInfo', () => {
  it('uses master_repl_offset as the offset of a primary', () => {
    expect(observe('primary-with-two-replicas')).toMatchObject({ role: 'primary', offset: 834 });
  });

  it('uses the applied slave_repl_offset as the offset of a replica', () => {
    expect(observe('replica-online')).toMatchObject({ role: 'replica', offset: 834, primaryLinkUp: true });
  });

  it('keeps the offset of a replica whose primary died, so failover can rank it', () => {
    expect(observe('replica-primary-down')).toMatchObject({ offset: 834, primaryLinkUp: false });
  });

  it('reports offset 0 for a replica that never synced', () => {
    expect(observe('replica-never-synced')).toMatchObject({ role: 'replica', offset: 0 });
  });

  it('shows a promoted replica as a primary that kept its offset under a new replication id', () => {
    const promoted = observe('promoted-replica');
    expect(promoted).toMatchObject({ role: 'primary', offset: 834 });
    expect(promoted.replicationId).not.toBe(observe('replica-primary-down').replicationId);
  });

  it('reads min-replicas-to-write from the CONFIG GET reply', () => {
    const text = fixture('primary-without-replicas');
    expect(observationFromInfo(text, text, text, ['min-replicas-to-write', '1']).minReplicasToWrite).toBe(1);
  });
});
