import { isPodReady, ordinalOf, podAddress, type PodObject } from '../../../operator/rediscluster/cluster-object';

interface PodOptions {
  readonly phase?: string;
  readonly podIP?: string;
  readonly deleting?: boolean;
  readonly conditions?: ReadonlyArray<{ readonly type: string; readonly status: string }>;
}

function pod({ phase = 'Running', podIP = '10.0.0.10', deleting = false, conditions = [] }: PodOptions = {}): PodObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'cache-0', namespace: 'prod', ...(deleting ? { deletionTimestamp: '2024-05-01T10:00:00Z' } : {}) },
    status: { phase, podIP, conditions },
  };
}

describe('ordinalOf', () => {
  it('reads the ordinal from a StatefulSet pod name', () => {
    expect(ordinalOf('cache', 'cache-2')).toBe(2);
  });

  it('reads ordinals of more than one digit', () => {
    expect(ordinalOf('cache', 'cache-12')).toBe(12);
  });

  it('reads the ordinal when the cluster name itself contains dashes', () => {
    expect(ordinalOf('my-cache', 'my-cache-3')).toBe(3);
  });

  it.each([
    ['a pod of another cluster', 'other-0'],
    ['a name that only shares the prefix without a dash', 'cache0'],
    ['a pod of a cluster whose name extends this one', 'cache-1-0'],
    ['a non-numeric suffix', 'cache-headless'],
    ['a suffix mixing digits and letters', 'cache-1a'],
    ['an empty suffix', 'cache-'],
    ['the cluster name alone', 'cache'],
  ])('has no ordinal for %s (%s)', (_description, name) => {
    expect(ordinalOf('cache', name)).toBeUndefined();
  });
});

describe('podAddress', () => {
  it('is the pod IP of a running pod', () => {
    expect(podAddress(pod({ podIP: '10.0.0.42' }))).toBe('10.0.0.42');
  });

  it('is null when there is no pod', () => {
    expect(podAddress(undefined)).toBeNull();
  });

  it('is null for a pod being deleted, even while it still runs', () => {
    expect(podAddress(pod({ deleting: true }))).toBeNull();
  });

  it('is null for a pod that is not running yet', () => {
    expect(podAddress(pod({ phase: 'Pending' }))).toBeNull();
  });

  it('is null for a pod that has finished', () => {
    expect(podAddress(pod({ phase: 'Failed' }))).toBeNull();
  });

  it('is null for a running pod without an IP', () => {
    const withoutIp: PodObject = { metadata: { name: 'cache-0' }, status: { phase: 'Running' } };
    expect(podAddress(withoutIp)).toBeNull();
  });

  it('is null for a pod without status', () => {
    expect(podAddress({ metadata: { name: 'cache-0' } })).toBeNull();
  });
});

describe('isPodReady', () => {
  it('is true when the Ready condition is True', () => {
    expect(isPodReady(pod({ conditions: [{ type: 'PodScheduled', status: 'True' }, { type: 'Ready', status: 'True' }] }))).toBe(true);
  });

  it('is false when the Ready condition is False', () => {
    expect(isPodReady(pod({ conditions: [{ type: 'Ready', status: 'False' }] }))).toBe(false);
  });

  it('is false when only other conditions are True', () => {
    expect(isPodReady(pod({ conditions: [{ type: 'ContainersReady', status: 'True' }, { type: 'Initialized', status: 'True' }] }))).toBe(false);
  });

  it('is false when the pod reports no conditions', () => {
    expect(isPodReady(pod({ conditions: [] }))).toBe(false);
  });

  it('is false for a pod without status', () => {
    expect(isPodReady({ metadata: { name: 'cache-0' } })).toBe(false);
  });
});
