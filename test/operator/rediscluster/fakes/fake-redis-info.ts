import { FAKE_REDIS_PORT, type FakeRedisServer } from './fake-redis-server';

/**
 * The text `INFO server`, `INFO replication`, `INFO persistence` and `INFO keyspace` of Redis 7 would print for a
 * fake server, so observations go through the controller's real parser (operator/redis/observation-from-info.ts)
 * instead of being hand-built.
 */
export interface FakeInfoText {
  readonly server: string;
  readonly replication: string;
  readonly persistence: string;
  readonly keyspace: string;
}

const NO_HISTORY = '0'.repeat(40);

/**
 * @param linkUp whether the replica's link to its primary is up (decided by the fleet, which knows the primary)
 * @param replicas the replicas attached to this server when it is a primary
 */
export function infoText(server: FakeRedisServer, linkUp: boolean, replicas: readonly FakeRedisServer[]): FakeInfoText {
  const replication = ['# Replication', `role:${server.role === 'primary' ? 'master' : 'slave'}`];
  if (server.role === 'replica') {
    replication.push(
      `master_host:${server.primaryHost ?? ''}`,
      `master_port:${server.primaryPort ?? FAKE_REDIS_PORT}`,
      `master_link_status:${linkUp ? 'up' : 'down'}`,
      `master_last_io_seconds_ago:${linkUp ? 0 : -1}`,
      'master_sync_in_progress:0',
      // A replica that never synced prints the placeholder 1 with master_repl_offset:0.
      `slave_read_repl_offset:${server.offset === 0 ? 1 : server.offset}`,
      `slave_repl_offset:${server.offset === 0 ? 1 : server.offset}`,
    );
    if (!linkUp) replication.push(`master_link_down_since_seconds:${server.stuckLinkDownSeconds ?? server.linkDownSeconds}`);
    replication.push('slave_priority:100', 'slave_read_only:1', 'replica_announced:1');
  }
  replication.push(`connected_slaves:${replicas.length}`);
  replicas.forEach((replica, index) => replication.push(`slave${index}:ip=${replica.host},port=${FAKE_REDIS_PORT},state=online,offset=${replica.offset},lag=0`));
  replication.push(
    'master_failover_state:no-failover',
    `master_replid:${server.replicationId}`,
    `master_replid2:${server.secondaryReplicationId ?? NO_HISTORY}`,
    `master_repl_offset:${server.offset}`,
    `second_repl_offset:${server.secondaryOffset}`,
  );
  return {
    server: ['# Server', 'redis_version:7.2.5', `run_id:${server.runId}`, 'uptime_in_seconds:100'].join('\r\n'),
    replication: replication.join('\r\n'),
    persistence: ['# Persistence', `loading:${server.loading ? 1 : 0}`].join('\r\n'),
    keyspace: server.keys > 0 ? ['# Keyspace', `db0:keys=${server.keys},expires=0,avg_ttl=0`].join('\r\n') : '# Keyspace',
  };
}
