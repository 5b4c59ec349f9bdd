import { setTimeout as delay } from 'node:timers/promises';
import { MANAGED_BY } from '../../src/naming';
import { REDIS_CLUSTER_API_VERSION, REDIS_CLUSTER_KIND } from '../../src/api';
import type { AdminClient } from './convergence-kube';
import type { ChildKind } from './convergence-workloads';

interface Condition {
  readonly type: string;
  readonly status: string;
}

interface ListedObject {
  readonly metadata: { readonly name: string; readonly generation?: number; readonly labels?: Record<string, string> };
  readonly spec?: { readonly nodeName?: string };
  readonly status?: { readonly observedGeneration?: number; readonly conditions?: Condition[]; readonly containerStatuses?: unknown[] };
}

/** One poll: whether the awaited state holds, and a short progress text ("87/100 Ready"). */
export interface CheckResult {
  readonly done: boolean;
  readonly progress: string;
}

/** When the awaited state was first seen, or where it stood when time ran out. */
export interface Observation {
  /** Seconds from the start of the phase to the start of the first poll that saw the state; undefined on timeout. */
  readonly seconds: number | undefined;
  readonly progress: string;
}

export interface PollOptions {
  /** `Date.now()` at the start of the measured phase. */
  readonly startedAtMilliseconds: number;
  readonly intervalMilliseconds: number;
  readonly timeoutMilliseconds: number;
  /** Progress lines, about every 10 s. */
  readonly log: (line: string) => void;
}

/**
 * Polls `check` until it reports done. The time recorded is when the successful poll started, so the figure is
 * late by at most one interval (plus one list). A timeout is a result, not an error: the caller prints how far it got.
 */
export async function pollUntil(description: string, check: () => Promise<CheckResult>, options: PollOptions): Promise<Observation> {
  const deadline = Date.now() + options.timeoutMilliseconds;
  let lastLog = 0;
  let progress = 'not polled yet';
  for (;;) {
    const pollStarted = Date.now();
    try {
      const result = await check();
      progress = result.progress;
      if (result.done) return { seconds: (pollStarted - options.startedAtMilliseconds) / 1000, progress };
    } catch (error) {
      progress = `poll failed: ${(error as Error).message}`;
    }
    if (Date.now() - lastLog >= 10_000) {
      lastLog = Date.now();
      options.log(`  … ${description}: ${progress} (${((Date.now() - options.startedAtMilliseconds) / 1000).toFixed(0)} s)`);
    }
    if (Date.now() >= deadline) return { seconds: undefined, progress };
    await delay(Math.max(0, options.intervalMilliseconds - (Date.now() - pollStarted)));
  }
}

const MANAGED_SELECTOR = `app.kubernetes.io/managed-by=${MANAGED_BY}`;

function conditionTrue(object: ListedObject, type: string): boolean {
  return object.status?.conditions?.some((condition) => condition.type === type && condition.status === 'True') ?? false;
}

/** Every RedisCluster has `status.observedGeneration` equal to its generation and every child object exists. */
export function clustersObserved(admin: AdminClient, namespace: string, names: readonly string[], children: readonly ChildKind[]): () => Promise<CheckResult> {
  return async () => {
    const clusters = await admin.list<ListedObject>(REDIS_CLUSTER_API_VERSION, REDIS_CLUSTER_KIND, namespace);
    const observed = clusters.filter((cluster) => cluster.status?.observedGeneration !== undefined && cluster.status.observedGeneration === cluster.metadata.generation).length;
    if (observed < names.length) return { done: false, progress: `${observed}/${names.length} clusters with status.observedGeneration` };
    // Only once every status is written (the controller writes it after applying the children): are they all there?
    const missing: string[] = [];
    for (const child of children) {
      const perInstance = new Map<string, number>();
      for (const object of await admin.list<ListedObject>(child.apiVersion, child.kind, namespace, MANAGED_SELECTOR)) {
        const instance = object.metadata.labels?.['app.kubernetes.io/instance'] ?? '';
        perInstance.set(instance, (perInstance.get(instance) ?? 0) + 1);
      }
      const short = names.filter((name) => (perInstance.get(name) ?? 0) < child.perCluster).length;
      if (short > 0) missing.push(`${short} clusters lack a ${child.kind}`);
    }
    return missing.length === 0 ? { done: true, progress: `${names.length}/${names.length} observed, all children exist` } : { done: false, progress: missing.join(', ') };
  };
}

/** Every RedisCluster reports the Ready condition True. */
export function clustersReady(admin: AdminClient, namespace: string, count: number): () => Promise<CheckResult> {
  return async () => {
    const clusters = await admin.list<ListedObject>(REDIS_CLUSTER_API_VERSION, REDIS_CLUSTER_KIND, namespace);
    const ready = clusters.filter((cluster) => conditionTrue(cluster, 'Ready')).length;
    return { done: ready >= count, progress: `${ready}/${count} clusters Ready` };
  };
}

/** `count` pods report the Ready condition True (the node agent's readiness probes passed). */
export function podsReady(admin: AdminClient, namespace: string, count: number): () => Promise<CheckResult> {
  return async () => {
    const pods = await admin.list<ListedObject>('v1', 'Pod', namespace, MANAGED_SELECTOR);
    const ready = pods.filter((pod) => conditionTrue(pod, 'Ready')).length;
    return { done: ready >= count, progress: `${ready}/${count} pods Ready (${pods.length} exist)` };
  };
}

/** `count` pods exist, are bound to the node and have container statuses from the node agent (for pods without a process). */
export function podsReported(admin: AdminClient, namespace: string, count: number): () => Promise<CheckResult> {
  return async () => {
    const pods = await admin.list<ListedObject>('v1', 'Pod', namespace, MANAGED_SELECTOR);
    const reported = pods.filter((pod) => pod.spec?.nodeName && (pod.status?.containerStatuses?.length ?? 0) > 0).length;
    return { done: reported >= count, progress: `${reported}/${count} pods bound with container status (${pods.length} exist)` };
  };
}
