import type { V1Pod } from '@kubernetes/client-node';
import { KubeApiError, type KubeRestClient } from '../kube/kube-rest-client';
import { PodBinder, type PodBinderOptions } from './pod-binder';

function pendingPod(name: string): V1Pod {
  return { metadata: { name, namespace: 'ns', uid: `uid-${name}` }, spec: { containers: [] } };
}

function binderWith(post: jest.Mock, options: Partial<PodBinderOptions> = {}): { binder: PodBinder; warn: jest.Mock } {
  const warn = jest.fn();
  const binder = new PodBinder({
    client: { post } as unknown as KubeRestClient,
    nodeName: 'node',
    warn,
    stillWantsBinding: () => true,
    retryBackoff: { initialMilliseconds: 1, maxMilliseconds: 1 },
    ...options,
  });
  return { binder, warn };
}

async function until(condition: () => boolean): Promise<void> {
  for (let spins = 0; spins < 1000 && !condition(); spins++) await new Promise((resolve) => setTimeout(resolve, 1));
  expect(condition()).toBe(true);
}

describe('PodBinder', () => {
  it('binds many pods concurrently but never more than its limit at once', async () => {
    let inFlight = 0;
    let peak = 0;
    const post = jest.fn(async () => {
      peak = Math.max(peak, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 2));
      inFlight--;
    });
    const { binder } = binderWith(post, { maxConcurrentBindings: 4 });
    for (let index = 0; index < 40; index++) binder.bind(pendingPod(`pod-${index}`));
    await until(() => binder.pendingCount === 0);
    expect(post).toHaveBeenCalledTimes(40);
    expect(peak).toBe(4);
    expect(post).toHaveBeenCalledWith('/api/v1/namespaces/ns/pods/pod-0/binding', expect.objectContaining({ kind: 'Binding', target: expect.objectContaining({ name: 'node' }) }));
  });

  it('binds a pod queued twice only once', async () => {
    const post = jest.fn(() => Promise.resolve());
    const { binder } = binderWith(post);
    binder.bind(pendingPod('a'));
    binder.bind(pendingPod('a'));
    await until(() => binder.pendingCount === 0);
    expect(post).toHaveBeenCalledTimes(1);
  });

  it('retries a failed binding, logging each failure, until it succeeds', async () => {
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const post = jest.fn().mockRejectedValueOnce(reset).mockRejectedValueOnce(reset).mockResolvedValue(undefined);
    const { binder, warn } = binderWith(post);
    binder.bind(pendingPod('a'));
    await until(() => binder.pendingCount === 0);
    expect(post).toHaveBeenCalledTimes(3);
    expect(warn).toHaveBeenCalledTimes(2);
    expect(warn.mock.calls[0][0]).toMatch(/binding ns\/a failed \(attempt 1 of 5\); retrying in \d+ ms/);
  });

  it('gives up after its attempts and says so, leaving the pod to the next resync', async () => {
    const post = jest.fn().mockRejectedValue(new KubeApiError('POST', '/binding', 500, 'InternalError', 'etcd down'));
    const { binder, warn } = binderWith(post, { maxAttempts: 3 });
    binder.bind(pendingPod('a'));
    await until(() => binder.pendingCount === 0);
    expect(post).toHaveBeenCalledTimes(3);
    expect(warn).toHaveBeenLastCalledWith('binding ns/a failed 3 times; the next resync tries again', expect.any(KubeApiError));
    binder.bind(pendingPod('a'));
    await until(() => post.mock.calls.length === 6);
  });

  it('treats 409 (already bound) and 404 (gone) as done, without a warning', async () => {
    const post = jest.fn()
      .mockRejectedValueOnce(new KubeApiError('POST', '/binding', 409, 'Conflict', 'already assigned'))
      .mockRejectedValueOnce(new KubeApiError('POST', '/binding', 404, 'NotFound', 'gone'));
    const { binder, warn } = binderWith(post);
    binder.bind(pendingPod('a'));
    binder.bind(pendingPod('b'));
    await until(() => binder.pendingCount === 0);
    expect(post).toHaveBeenCalledTimes(2);
    expect(warn).not.toHaveBeenCalled();
  });

  it('skips a pod that no longer waits for a node by the time its turn comes', async () => {
    const post = jest.fn(() => Promise.resolve());
    const { binder } = binderWith(post, { stillWantsBinding: (key) => key !== 'ns/deleted' });
    binder.bind(pendingPod('deleted'));
    binder.bind(pendingPod('kept'));
    await until(() => binder.pendingCount === 0);
    expect(post).toHaveBeenCalledTimes(1);
    expect(post).toHaveBeenCalledWith('/api/v1/namespaces/ns/pods/kept/binding', expect.anything());
  });
});
