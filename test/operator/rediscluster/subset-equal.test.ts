import { isSubsetOf } from '../../../operator/rediscluster/subset-equal';

/** A Service as we apply it. */
function desiredService() {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'cache', namespace: 'prod', labels: { 'app.kubernetes.io/name': 'redis' } },
    spec: {
      type: 'ClusterIP',
      selector: { 'app.kubernetes.io/instance': 'cache', 'redis.redkite.io/role': 'primary' },
      ports: [{ name: 'redis', port: 6379, targetPort: 'redis', protocol: 'TCP' }],
    },
  };
}

/** The same Service as the apiserver returns it: metadata, defaults and status added. */
function liveService() {
  const desired = desiredService();
  return {
    ...desired,
    metadata: {
      ...desired.metadata,
      uid: 'a1b2',
      resourceVersion: '4711',
      creationTimestamp: '2024-05-01T10:00:00Z',
      managedFields: [{ manager: 'redkite', operation: 'Apply' }],
    },
    spec: {
      ...desired.spec,
      clusterIP: '10.96.0.12',
      clusterIPs: ['10.96.0.12'],
      sessionAffinity: 'None',
      ipFamilies: ['IPv4'],
    },
    status: { loadBalancer: {} },
  };
}

describe('isSubsetOf', () => {
  it('holds for identical objects', () => {
    expect(isSubsetOf(desiredService(), desiredService())).toBe(true);
  });

  it('ignores fields the apiserver adds', () => {
    expect(isSubsetOf(desiredService(), liveService())).toBe(true);
  });

  it('detects a changed field we own', () => {
    const live = liveService();
    expect(isSubsetOf(desiredService(), { ...live, spec: { ...live.spec, type: 'NodePort' } })).toBe(false);
  });

  it('detects a field we own that is missing from the live object', () => {
    const live = liveService();
    expect(isSubsetOf(desiredService(), { ...live, metadata: { ...live.metadata, labels: undefined } })).toBe(false);
  });

  it('ignores desired fields left undefined', () => {
    expect(isSubsetOf({ spec: { type: 'ClusterIP', externalName: undefined } }, { spec: { type: 'ClusterIP' } })).toBe(true);
  });

  it('detects a change deep inside nested objects', () => {
    const live = liveService();
    const relabelled = { ...live, spec: { ...live.spec, selector: { ...live.spec.selector, 'redis.redkite.io/role': 'replica' } } };
    expect(isSubsetOf(desiredService(), relabelled)).toBe(false);
  });

  it('ignores fields added deep inside nested objects', () => {
    expect(isSubsetOf({ a: { b: { c: 1 } } }, { a: { b: { c: 1, added: true }, added: [] } })).toBe(true);
  });

  it('compares arrays element by element, each element as a subset', () => {
    expect(isSubsetOf([{ name: 'redis', port: 6379 }], [{ name: 'redis', port: 6379, protocol: 'TCP' }])).toBe(true);
  });

  it('detects a changed array element', () => {
    expect(isSubsetOf([{ name: 'redis', port: 6379 }], [{ name: 'redis', port: 6380 }])).toBe(false);
  });

  it('detects an array with an extra live element', () => {
    expect(isSubsetOf(['a'], ['a', 'b'])).toBe(false);
  });

  it('detects an array with a missing live element', () => {
    expect(isSubsetOf(['a', 'b'], ['a'])).toBe(false);
  });

  it('treats a reordered array as changed', () => {
    expect(isSubsetOf(['a', 'b'], ['b', 'a'])).toBe(false);
  });

  it('treats a number and the same number as a string as equal', () => {
    expect(isSubsetOf({ targetPort: 6379 }, { targetPort: '6379' })).toBe(true);
  });

  it('treats a numeric string and the same number as equal', () => {
    expect(isSubsetOf({ maxUnavailable: '1' }, { maxUnavailable: 1 })).toBe(true);
  });

  it('detects a number that differs from a numeric string', () => {
    expect(isSubsetOf({ targetPort: 6379 }, { targetPort: '6380' })).toBe(false);
  });

  it('detects a scalar replaced by an object', () => {
    expect(isSubsetOf({ targetPort: 6379 }, { targetPort: { value: 6379 } })).toBe(false);
  });

  it('detects an object replaced by a scalar', () => {
    expect(isSubsetOf({ selector: { app: 'redis' } }, { selector: 'app=redis' })).toBe(false);
  });

  it('detects an object replaced by an array', () => {
    expect(isSubsetOf({ selector: { app: 'redis' } }, { selector: [{ app: 'redis' }] })).toBe(false);
  });

  it('detects an array replaced by an object', () => {
    expect(isSubsetOf({ ports: [6379] }, { ports: { 0: 6379 } })).toBe(false);
  });

  it('matches null with null', () => {
    expect(isSubsetOf({ value: null }, { value: null })).toBe(true);
  });

  it('detects a desired null the live object does not have', () => {
    expect(isSubsetOf({ value: null }, {})).toBe(false);
  });

  it('detects a changed boolean', () => {
    expect(isSubsetOf({ publishNotReadyAddresses: true }, { publishNotReadyAddresses: false })).toBe(false);
  });
});
