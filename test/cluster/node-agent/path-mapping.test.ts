import { PathMapping } from './path-mapping';

const mapping = new PathMapping(
  [
    { mountPath: '/data', hostPath: '/host/pvc', readOnly: false },
    { mountPath: '/etc/redis/', hostPath: '/host/config', readOnly: true },
  ],
  '/host/scratch',
);

describe('PathMapping', () => {
  it('maps paths under a mount to the volume folder and other paths to the scratch root', () => {
    expect(mapping.toHostPath('/data/appendonly.aof')).toBe('/host/pvc/appendonly.aof');
    expect(mapping.toHostPath('/etc/redis')).toBe('/host/config');
    expect(mapping.toHostPath('/tmp/x')).toBe('/host/scratch/tmp/x');
  });

  it('leaves paths that are already host paths alone', () => {
    expect(mapping.toHostPath('/host/pvc/dump.rdb')).toBe('/host/pvc/dump.rdb');
  });

  it('rewrites mount paths inside text without touching longer names or already rewritten paths', () => {
    expect(mapping.rewriteText('cp /etc/redis/redis.conf /data && echo /database /data')).toBe('cp /host/config/redis.conf /host/pvc && echo /database /host/pvc');
    expect(mapping.rewriteText(mapping.rewriteText('dir /data'))).toBe('dir /host/pvc');
  });
});
