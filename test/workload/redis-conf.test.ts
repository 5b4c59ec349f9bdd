import { resolveSpec } from '../../src/api';
import { renderRedisConf } from '../../src/workload/redis-conf';

describe('renderRedisConf', () => {
  it('boots every Redis fenced, as a replica of an address where nothing listens', () => {
    expect(renderRedisConf(resolveSpec()).text).toContain('\nreplicaof 127.0.0.1 1\n');
  });

  it('turns on the append-only file for AOF persistence and snapshots for RDB', () => {
    expect(renderRedisConf(resolveSpec({ persistence: 'AOF' })).text).toMatch(/appendonly yes\nappendfsync everysec\nsave ""/);
    expect(renderRedisConf(resolveSpec({ persistence: 'RDB' })).text).toMatch(/appendonly no\nsave "3600 1 300 100 60 10000"/);
    expect(renderRedisConf(resolveSpec({ persistence: 'None' })).text).toMatch(/appendonly no\nsave ""/);
  });

  it('writes min-replicas-to-write and the one-second replica ping the failover veto relies on', () => {
    const text = renderRedisConf(resolveSpec({ replicas: 3, minReplicasToWrite: 1, minReplicasMaxLagSeconds: 5 })).text;
    expect(text).toContain('min-replicas-to-write 1\n');
    expect(text).toContain('min-replicas-max-lag 5\n');
    expect(text).toContain('repl-ping-replica-period 1\n');
  });

  it('appends user parameters sorted, quoting values with spaces', () => {
    const text = renderRedisConf(resolveSpec({ config: { timeout: '30', 'client-output-buffer-limit': 'pubsub 32mb 8mb 60' } })).text;
    expect(text.indexOf('client-output-buffer-limit "pubsub 32mb 8mb 60"')).toBeLessThan(text.indexOf('timeout 30'));
  });

  it('drops managed parameters that slipped past admission', () => {
    const rendered = renderRedisConf(resolveSpec({ config: { dir: '/tmp', 'rename-command': 'FLUSHALL ""', timeout: '5' } }));
    expect(rendered.text).not.toContain('/tmp');
    expect(rendered.text).not.toContain('rename-command');
    expect(rendered.liveParameters).not.toHaveProperty('dir');
  });

  it('offers everything but restart-only parameters for live CONFIG SET', () => {
    const rendered = renderRedisConf(resolveSpec({ config: { databases: '32', 'maxmemory-policy': 'allkeys-lru' }, minReplicasToWrite: 1 }));
    expect(rendered.liveParameters).toMatchObject({ 'maxmemory-policy': 'allkeys-lru', 'min-replicas-to-write': '1', appendonly: 'yes' });
    expect(rendered.liveParameters).not.toHaveProperty('databases');
  });
});
