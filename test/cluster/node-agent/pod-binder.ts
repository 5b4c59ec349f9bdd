import type { V1Pod } from '@kubernetes/client-node';
import { ConcurrencyLimit } from '../kube/concurrency-limit';
import { KubeApiError, type KubeRestClient } from '../kube/kube-rest-client';
import { backoffDelayMilliseconds, sleep, type BackoffSettings } from '../kube/retry-backoff';

/** What the binder needs. */
export interface PodBinderOptions {
  readonly client: KubeRestClient;
  readonly nodeName: string;
  readonly warn: (message: string, error?: unknown) => void;
  /**
   * Whether the pod (by namespace/name and uid) still waits for a node, judged from the latest object seen:
   * checked before every attempt, so a pod deleted or bound meanwhile costs no request.
   */
  readonly stillWantsBinding: (key: string, uid: string) => boolean;
  /** Bindings in flight at once. @default 8 */
  readonly maxConcurrentBindings?: number;
  /** Attempts per pod before the binder lets the agent's next resync try again. @default 5 */
  readonly maxAttempts?: number;
  /** @default 200 ms → 5 s */
  readonly retryBackoff?: BackoffSettings;
}

const DEFAULT_MAX_CONCURRENT_BINDINGS = 8;
const DEFAULT_MAX_ATTEMPTS = 5;
const DEFAULT_RETRY_BACKOFF: BackoffSettings = { initialMilliseconds: 200, maxMilliseconds: 5000 };

/**
 * Plays the scheduler for a one-node cluster: binds every pending pod to this node through the `binding`
 * subresource (which also sets PodScheduled=True). Affinity, taints and resources are not evaluated: there is
 * nowhere else to go. Pods naming another `schedulerName` are left alone.
 *
 * Bindings run concurrently but bounded (8 in flight, in arrival order), so a burst of a thousand pods neither
 * waits in single file nor opens a thousand requests at once. A failed binding is logged and retried with
 * back-off (5 attempts); after that the agent's periodic resync asks again, so a pod is never left unbound.
 */
export class PodBinder {
  private readonly pending = new Set<string>();
  private readonly limit: ConcurrencyLimit;
  private readonly maxAttempts: number;
  private readonly retryBackoff: BackoffSettings;
  private stopped = false;

  constructor(private readonly options: PodBinderOptions) {
    this.limit = new ConcurrencyLimit(options.maxConcurrentBindings ?? DEFAULT_MAX_CONCURRENT_BINDINGS);
    this.maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    this.retryBackoff = options.retryBackoff ?? DEFAULT_RETRY_BACKOFF;
  }

  /** Whether this pod waits for a scheduler we stand in for. */
  wantsBinding(pod: V1Pod): boolean {
    const schedulerName = pod.spec?.schedulerName ?? 'default-scheduler';
    return !pod.spec?.nodeName && !pod.metadata?.deletionTimestamp && schedulerName === 'default-scheduler';
  }

  /** Queues the pod for binding (once: a pod already queued or in flight is not queued again). */
  bind(pod: V1Pod): void {
    const uid = pod.metadata!.uid!;
    if (this.stopped || this.pending.has(uid)) return;
    this.pending.add(uid);
    void this.bindWithRetries(pod.metadata!.namespace!, pod.metadata!.name!, uid).finally(() => this.pending.delete(uid));
  }

  /** Bindings queued or in flight. */
  get pendingCount(): number {
    return this.pending.size;
  }

  stop(): void {
    this.stopped = true;
  }

  private async bindWithRetries(namespace: string, name: string, uid: string): Promise<void> {
    const key = `${namespace}/${name}`;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.limit.run(async () => {
          // Checked once a slot is free: the pod may have been bound, deleted or replaced while it waited.
          if (this.stopped || !this.options.stillWantsBinding(key, uid)) return;
          await this.options.client.post(`/api/v1/namespaces/${namespace}/pods/${name}/binding`, {
            apiVersion: 'v1',
            kind: 'Binding',
            metadata: { name, namespace, uid },
            target: { apiVersion: 'v1', kind: 'Node', name: this.options.nodeName },
          });
        });
        return;
      } catch (error) {
        // 409: already bound (a retried request that had landed, or a resync racing the watch); 404: the pod is gone.
        if (error instanceof KubeApiError && (error.statusCode === 409 || error.statusCode === 404)) return;
        if (this.stopped) return;
        if (attempt >= this.maxAttempts) {
          this.options.warn(`binding ${key} failed ${attempt} times; the next resync tries again`, error);
          return;
        }
        const delay = backoffDelayMilliseconds(this.retryBackoff, attempt);
        this.options.warn(`binding ${key} failed (attempt ${attempt} of ${this.maxAttempts}); retrying in ${delay} ms`, error);
        await sleep(delay);
      }
    }
  }
}
