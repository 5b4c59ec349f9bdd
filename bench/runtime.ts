/**
 * Benchmarks of the controller runtime (`npm run bench:runtime`):
 *
 * 1. Work-queue throughput: keys per second through a no-op reconcile with 4 workers (100 000 distinct keys),
 *    with controller-runtime metrics recorded as in production.
 * 2. Cache memory: heap per cached object at 10 000 ConfigMap-like objects, with managedFields stripped (as the
 *    informer stores them) and, for comparison, kept.
 *
 * Memory needs `global.gc`; without `--expose-gc` the script re-runs itself with it.
 */
import { spawnSync } from 'node:child_process';
import { Registry } from 'prom-client';
import pino from 'pino';
import { Controller } from '../operator/runtime/controller';
import { StoreWriter } from '../operator/runtime/informer/store';
import type { KubernetesObject } from '../operator/runtime/kubernetes-object';
import { RuntimeMetrics } from '../operator/runtime/metrics/runtime-metrics';

const KEY_COUNT = 100_000;
const WORKERS = 4;
const CACHED_OBJECTS = 10_000;

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  const rerun = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', __filename], { stdio: 'inherit' });
  process.exit(rerun.status ?? 1);
}

async function measureThroughput(): Promise<{ keysPerSecond: number; elapsedMs: number }> {
  const metrics = new RuntimeMetrics(new Registry());
  let reconciled = 0;
  let resolveDone!: () => void;
  const done = new Promise<void>((resolve) => (resolveDone = resolve));
  const controller = new Controller({
    name: 'bench',
    maxConcurrentReconciles: WORKERS,
    reconciler: async () => {
      reconciled += 1;
      if (reconciled === KEY_COUNT) resolveDone();
    },
    logger: pino({ level: 'silent' }),
    metrics: metrics.controllers,
    workQueueMetrics: metrics.workQueues.forQueue('bench'),
  });
  const started = performance.now();
  for (let index = 0; index < KEY_COUNT; index += 1) controller.enqueue({ namespace: `ns-${index % 100}`, name: `object-${index}` });
  controller.start();
  await done;
  const elapsedMs = performance.now() - started;
  await controller.stop(1000);
  return { keysPerSecond: KEY_COUNT / (elapsedMs / 1000), elapsedMs };
}

/** A ConfigMap as the apiserver returns it, including two managedFields entries. Fresh strings for every call. */
function configMapJson(index: number): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: `redis-config-${index}`,
      namespace: `team-${index % 50}`,
      uid: `4f1c2a9e-${String(index).padStart(4, '0')}-4b7e-9a0d-5c3e2f1b${String(index).padStart(4, '0')}`,
      resourceVersion: String(100_000 + index),
      creationTimestamp: '2025-01-01T00:00:00Z',
      labels: { 'app.kubernetes.io/name': 'redis', 'app.kubernetes.io/instance': `cache-${index}`, 'app.kubernetes.io/managed-by': 'redkite' },
      annotations: { 'redkite.io/spec-hash': `sha256-${index.toString(16).padStart(16, '0')}` },
      ownerReferences: [
        { apiVersion: 'redkite.io/v1alpha1', kind: 'RedisCluster', name: `cache-${index}`, uid: `uid-${index}`, controller: true, blockOwnerDeletion: true },
      ],
      managedFields: [
        {
          manager: 'redkite',
          operation: 'Apply',
          apiVersion: 'v1',
          time: '2025-01-01T00:00:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:data': { 'f:redis.conf': {}, 'f:sentinel.conf': {} },
            'f:metadata': {
              'f:annotations': { 'f:redkite.io/spec-hash': {} },
              'f:labels': { 'f:app.kubernetes.io/instance': {}, 'f:app.kubernetes.io/managed-by': {}, 'f:app.kubernetes.io/name': {} },
              'f:ownerReferences': { [`k:{"uid":"uid-${index}"}`]: {} },
            },
          },
        },
        {
          manager: 'kube-controller-manager',
          operation: 'Update',
          apiVersion: 'v1',
          time: '2025-01-01T00:00:01Z',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:metadata': { 'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} } } },
        },
      ],
    },
    data: {
      'redis.conf': `port 6379\nappendonly yes\nmaxmemory 256mb\nmaxmemory-policy allkeys-lru\nreplica-announce-ip 10.0.${index % 256}.${index % 250}\n`,
      'sentinel.conf': `sentinel monitor cache-${index} 10.0.0.1 6379 2\nsentinel down-after-milliseconds cache-${index} 5000\n`,
    },
  });
}

function heapUsedAfterGc(): number {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed;
}

function measureCacheBytesPerObject(stripManagedFields: boolean): { bytesPerObject: number; jsonBytes: number } {
  const before = heapUsedAfterGc();
  const store = new StoreWriter<KubernetesObject>({});
  const raw = new Map<string, KubernetesObject>();
  store.apply({ type: 'init' });
  for (let index = 0; index < CACHED_OBJECTS; index += 1) {
    const object = JSON.parse(configMapJson(index)) as KubernetesObject;
    if (stripManagedFields) store.apply({ type: 'initApply', object });
    else raw.set(`${object.metadata.namespace}/${object.metadata.name}`, object);
  }
  store.apply({ type: 'initDone' });
  const after = heapUsedAfterGc();
  // Keep both alive until after the measurement.
  if (store.size + raw.size !== CACHED_OBJECTS) throw new Error('cache lost objects');
  return { bytesPerObject: (after - before) / CACHED_OBJECTS, jsonBytes: Buffer.byteLength(configMapJson(CACHED_OBJECTS / 2)) };
}

async function main(): Promise<void> {
  // Warm up the JIT so the measured run is steady state.
  await measureThroughput();
  const runs = [await measureThroughput(), await measureThroughput(), await measureThroughput()];
  const best = runs.reduce((a, b) => (a.keysPerSecond > b.keysPerSecond ? a : b));
  const stripped = measureCacheBytesPerObject(true);
  const kept = measureCacheBytesPerObject(false);
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(2)} KiB`;
  console.log(`redkite runtime benchmark (Node ${process.version}, ${process.arch})`);
  console.log('');
  console.log(`work queue: ${KEY_COUNT.toLocaleString('en-US')} keys through a no-op reconcile, ${WORKERS} workers, metrics on`);
  console.log(`  runs: ${runs.map((run) => `${Math.round(run.keysPerSecond).toLocaleString('en-US')} keys/s`).join(', ')}`);
  console.log(`  best: ${Math.round(best.keysPerSecond).toLocaleString('en-US')} keys/s (${best.elapsedMs.toFixed(0)} ms for ${KEY_COUNT.toLocaleString('en-US')} keys)`);
  console.log('');
  console.log(`cache: ${CACHED_OBJECTS.toLocaleString('en-US')} ConfigMap-like objects (${stripped.jsonBytes} bytes of JSON each, two managedFields entries)`);
  console.log(`  managedFields stripped (informer store): ${kib(stripped.bytesPerObject)} per object`);
  console.log(`  managedFields kept (for comparison):     ${kib(kept.bytesPerObject)} per object`);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
