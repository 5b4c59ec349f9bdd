import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isRedisImage, planContainerLaunch } from './container-launch-plan';
import { PathMapping } from './path-mapping';

describe('isRedisImage', () => {
  it.each(['redis:7.2', 'docker.io/library/redis:7.2-alpine', 'bitnami/redis-sentinel:7.2', 'redis@sha256:abc'])('accepts %s', (image) => {
    expect(isRedisImage(image)).toBe(true);
  });
  it.each(['oliver006/redis_exporter:v1.62.0', 'ghcr.io/example/redkite:0.1.0', 'nginx'])('refuses %s', (image) => {
    expect(isRedisImage(image)).toBe(false);
  });
});

describe('planContainerLaunch', () => {
  const root = mkdtempSync(join(tmpdir(), 'launch-plan-'));
  const data = join(root, 'data');
  const config = join(root, 'config');
  const mapping = new PathMapping([{ mountPath: '/data', hostPath: data, readOnly: false }, { mountPath: '/etc/redis', hostPath: config, readOnly: true }], join(root, 'scratch'));
  const context = { env: { PORT: '6380' }, mapping, shimsFolder: '/nonexistent-shims', podIp: '127.10.1.1', hostname: 'redis-0', scratchFolder: root };

  it('runs redis-server with the image entrypoint rules, expanded args and a --dir on the host', () => {
    const plan = planContainerLaunch({ ...context, container: { name: 'redis', image: 'redis:7.2', args: ['--port', '$(PORT)'] } });
    expect(plan).toMatchObject({ runnable: true, args: ['--port', '6380', '--dir', data], cwd: data });
  });

  it('rewrites mount paths inside the config file and uses its dir', () => {
    mkdirSync(config, { recursive: true });
    writeFileSync(join(config, 'redis.conf'), 'dir /data/db\nappendonly yes\n');
    const plan = planContainerLaunch({ ...context, container: { name: 'redis', image: 'redis:7.2', command: ['redis-server', '/etc/redis/redis.conf'] } });
    expect(plan).toMatchObject({ runnable: true, args: [join(config, 'redis.conf'), '--dir', join(data, 'db')] });
    expect(readFileSync(join(config, 'redis.conf'), 'utf8')).toContain(`dir ${join(data, 'db')}`);
  });

  it('refuses images that are not Redis with a clear reason', () => {
    const plan = planContainerLaunch({ ...context, container: { name: 'operator', image: 'ghcr.io/example/redkite:0.1.0' } });
    expect(plan).toMatchObject({ runnable: false, reason: 'ImageNotRunnable' });
  });
});
