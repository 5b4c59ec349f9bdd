import { Registry } from 'prom-client';
import { Controller } from '../../../operator/runtime/controller';
import { TerminalError, TransientError } from '../../../operator/runtime/errors';
import type { ObjectKey } from '../../../operator/runtime/kubernetes-object';
import { ControllerMetrics } from '../../../operator/runtime/metrics/controller-metrics';
import type { ReconcileContext, ReconcileResult } from '../../../operator/runtime/reconciler';
import { ItemExponentialFailureRateLimiter } from '../../../operator/runtime/workqueue/rate-limiter';
import { recordingLogger, silentLogger } from './support/test-logger';

type Reconcile = (key: ObjectKey, context: ReconcileContext) => Promise<ReconcileResult | void>;

function controllerWith(reconcile: Reconcile, options: { workers?: number; metrics?: ControllerMetrics; logger?: typeof silentLogger } = {}): Controller {
  return new Controller({
    name: 'test',
    reconciler: reconcile,
    maxConcurrentReconciles: options.workers ?? 4,
    rateLimiter: new ItemExponentialFailureRateLimiter(),
    logger: options.logger ?? silentLogger,
    metrics: options.metrics,
  });
}

/** A promise the test resolves by hand. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

async function metricValue(registry: Registry, name: string, labels: Record<string, string>): Promise<number | undefined> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  const value = (metric?.values as Array<{ labels: Record<string, string>; value: number }> | undefined)?.find((v) =>
    Object.entries(labels).every(([label, expected]) => v.labels[label] === expected),
  );
  return value?.value;
}

describe('Controller', () => {
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  it('reconciles each enqueued key with its namespace and name', async () => {
    const seen: ObjectKey[] = [];
    const controller = controllerWith(async (key) => {
      seen.push(key);
    });
    controller.enqueue({ namespace: 'a', name: 'one' });
    controller.enqueue({ namespace: '', name: 'cluster-scoped' });
    controller.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(seen).toEqual([
      { namespace: 'a', name: 'one' },
      { namespace: '', name: 'cluster-scoped' },
    ]);
    await controller.stop(1000);
  });

  it('never runs two reconciles of the same key at once, and reruns a key changed meanwhile', async () => {
    let running = 0;
    let maxRunning = 0;
    let calls = 0;
    const gate = deferred();
    const controller = controllerWith(async () => {
      calls += 1;
      running += 1;
      maxRunning = Math.max(maxRunning, running);
      if (calls === 1) await gate.promise;
      running -= 1;
    });
    controller.start();
    controller.enqueue({ namespace: 'a', name: 'x' });
    await jest.advanceTimersByTimeAsync(0);
    for (let index = 0; index < 5; index += 1) controller.enqueue({ namespace: 'a', name: 'x' });
    await jest.advanceTimersByTimeAsync(0);
    expect(calls).toBe(1);
    gate.resolve();
    await jest.advanceTimersByTimeAsync(0);
    expect(calls).toBe(2);
    expect(maxRunning).toBe(1);
    await controller.stop(1000);
  });

  it('runs different keys in parallel up to the number of workers', async () => {
    let running = 0;
    let maxRunning = 0;
    const gate = deferred();
    const controller = controllerWith(
      async () => {
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        await gate.promise;
        running -= 1;
      },
      { workers: 3 },
    );
    controller.start();
    for (let index = 0; index < 10; index += 1) controller.enqueue({ namespace: 'a', name: `k${index}` });
    await jest.advanceTimersByTimeAsync(0);
    expect(running).toBe(3);
    gate.resolve();
    await jest.advanceTimersByTimeAsync(0);
    expect(maxRunning).toBe(3);
    await controller.stop(1000);
  });

  it('retries a failing key with growing backoff and resets it after a success', async () => {
    const callTimes: number[] = [];
    let failuresLeft = 4;
    const controller = controllerWith(async () => {
      callTimes.push(Date.now());
      if (failuresLeft > 0) {
        failuresLeft -= 1;
        throw new TransientError('not yet');
      }
    });
    controller.start();
    controller.enqueue({ namespace: 'a', name: 'x' });
    await jest.advanceTimersByTimeAsync(1000);
    const gaps = callTimes.slice(1).map((time, index) => time - callTimes[index]);
    expect(gaps).toEqual([5, 10, 20, 40]);
    expect(controller.queue.retries('a/x')).toBe(0);
    await controller.stop(1000);
  });

  it('passes the retry count to the reconciler', async () => {
    const retries: number[] = [];
    const controller = controllerWith(async (_key, context) => {
      retries.push(context.retries);
      if (retries.length < 3) throw new Error('boom');
    });
    controller.start();
    controller.enqueue({ namespace: 'a', name: 'x' });
    await jest.advanceTimersByTimeAsync(100);
    expect(retries).toEqual([0, 1, 2]);
    await controller.stop(1000);
  });

  it('does not retry a TerminalError', async () => {
    let calls = 0;
    const { logger, entries } = recordingLogger();
    const controller = controllerWith(
      async () => {
        calls += 1;
        throw new TerminalError('spec.replicas must be odd');
      },
      { logger },
    );
    controller.start();
    controller.enqueue({ namespace: 'a', name: 'x' });
    await jest.advanceTimersByTimeAsync(60_000);
    expect(calls).toBe(1);
    expect(entries.some((entry) => entry.msg === 'reconcile failed with a terminal error; not retrying' && entry.key === 'a/x')).toBe(true);
    await controller.stop(1000);
  });

  it('requeues after the requested delay without counting a failure', async () => {
    const callTimes: number[] = [];
    const controller = controllerWith(async () => {
      callTimes.push(Date.now());
      return { requeueAfterMs: 30_000 };
    });
    controller.start();
    controller.enqueue({ namespace: 'a', name: 'x' });
    await jest.advanceTimersByTimeAsync(90_000);
    expect(callTimes).toEqual([0, 30_000, 60_000, 90_000]);
    expect(controller.queue.retries('a/x')).toBe(0);
    await controller.stop(1000);
  });

  it('survives non-Error throws and keeps reconciling other keys', async () => {
    const seen: string[] = [];
    const controller = controllerWith(async (key) => {
      if (key.name === 'bad') throw 'a string, not an Error';
      seen.push(key.name);
    });
    controller.start();
    controller.enqueue({ namespace: 'a', name: 'bad' });
    controller.enqueue({ namespace: 'a', name: 'good' });
    await jest.advanceTimersByTimeAsync(10);
    expect(seen).toEqual(['good']);
    await controller.stop(1000);
  });

  it('logs every reconcile with controller, key and a unique reconcile id', async () => {
    const ids: string[] = [];
    const { logger, entries } = recordingLogger();
    const controller = controllerWith(
      async (_key, context) => {
        ids.push(context.reconcileId);
        context.logger.info('reconciling');
      },
      { logger },
    );
    controller.start();
    controller.enqueue({ namespace: 'a', name: 'x' });
    controller.enqueue({ namespace: 'a', name: 'y' });
    await jest.advanceTimersByTimeAsync(0);
    const lines = entries.filter((entry) => entry.msg === 'reconciling');
    expect(lines.map((line) => [line.controller, line.key])).toEqual([
      ['test', 'a/x'],
      ['test', 'a/y'],
    ]);
    expect(lines.map((line) => line.reconcileId)).toEqual(ids);
    expect(new Set(ids).size).toBe(2);
    await controller.stop(1000);
  });

  it('counts results, errors and terminal errors with controller-runtime metric names', async () => {
    const registry = new Registry();
    const metrics = new ControllerMetrics(registry);
    const controller = controllerWith(
      async (key) => {
        if (key.name === 'transient') throw new Error('boom');
        if (key.name === 'terminal') throw new TerminalError('bad spec');
        if (key.name === 'later') return { requeueAfterMs: 60_000 };
        return undefined;
      },
      { metrics },
    );
    controller.start();
    for (const name of ['ok', 'transient', 'terminal', 'later']) controller.enqueue({ namespace: 'a', name });
    await jest.advanceTimersByTimeAsync(0);
    await controller.stop(1000);
    const total = (result: string) => metricValue(registry, 'controller_runtime_reconcile_total', { controller: 'test', result });
    expect(await total('success')).toBe(1);
    expect(await total('error')).toBe(2);
    expect(await total('requeue_after')).toBe(1);
    expect(await metricValue(registry, 'controller_runtime_reconcile_errors_total', { controller: 'test' })).toBe(2);
    expect(await metricValue(registry, 'controller_runtime_terminal_reconcile_errors_total', { controller: 'test' })).toBe(1);
    expect(await metricValue(registry, 'controller_runtime_max_concurrent_reconciles', { controller: 'test' })).toBe(4);
    expect(await metricValue(registry, 'controller_runtime_active_workers', { controller: 'test' })).toBe(0);
  });

  it('on shutdown takes no new work and waits for in-flight reconciles', async () => {
    const started: string[] = [];
    const gate = deferred();
    const controller = controllerWith(
      async (key) => {
        started.push(key.name);
        await gate.promise;
      },
      { workers: 1 },
    );
    controller.start();
    controller.enqueue({ namespace: 'a', name: 'first' });
    controller.enqueue({ namespace: 'a', name: 'second' });
    await jest.advanceTimersByTimeAsync(0);
    let drainedInTime: boolean | undefined;
    void controller.stop(10_000).then((inTime) => (drainedInTime = inTime));
    await jest.advanceTimersByTimeAsync(1000);
    expect(drainedInTime).toBeUndefined();
    gate.resolve();
    await jest.advanceTimersByTimeAsync(0);
    expect(drainedInTime).toBe(true);
    expect(started).toEqual(['first']);
  });

  it('aborts in-flight reconciles when the shutdown deadline passes', async () => {
    let signal: AbortSignal | undefined;
    const controller = controllerWith(async (_key, context) => {
      signal = context.signal;
      await new Promise(() => undefined);
    });
    controller.start();
    controller.enqueue({ namespace: 'a', name: 'stuck' });
    await jest.advanceTimersByTimeAsync(0);
    let drainedInTime: boolean | undefined;
    void controller.stop(5000).then((inTime) => (drainedInTime = inTime));
    await jest.advanceTimersByTimeAsync(4999);
    expect(signal?.aborted).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(drainedInTime).toBe(false);
    expect(signal?.aborted).toBe(true);
  });

  it('aborts in-flight reconciles and stops taking work when leadership is lost', async () => {
    let signal: AbortSignal | undefined;
    const calls: string[] = [];
    const leadership = new AbortController();
    const controller = controllerWith(
      async (key, context) => {
        calls.push(key.name);
        signal = context.signal;
        await new Promise((resolve) => context.signal.addEventListener('abort', resolve));
      },
      { workers: 1 },
    );
    controller.start(leadership.signal);
    controller.enqueue({ namespace: 'a', name: 'x' });
    controller.enqueue({ namespace: 'a', name: 'y' });
    await jest.advanceTimersByTimeAsync(0);
    leadership.abort();
    await jest.advanceTimersByTimeAsync(0);
    expect(signal?.aborted).toBe(true);
    expect(calls).toEqual(['x']);
  });

  it('re-enqueues every primary key on periodic resync', async () => {
    const seen: string[] = [];
    const controller = new Controller({
      name: 'test',
      reconciler: async (key) => {
        seen.push(key.name);
      },
      resyncPeriodMs: 60_000,
      listKeysForResync: () => [
        { namespace: 'a', name: 'x' },
        { namespace: 'a', name: 'y' },
      ],
      logger: silentLogger,
    });
    controller.start();
    await jest.advanceTimersByTimeAsync(120_000);
    expect(seen).toEqual(['x', 'y', 'x', 'y']);
    await controller.stop(1000);
  });
});
