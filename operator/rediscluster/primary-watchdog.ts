import type { ObjectKey } from '../runtime';
import { objectKeyToString } from '../runtime';
import type { RedisAdmin, RedisEndpoint } from '../redis';

/**
 * Probes every cluster's primary every `intervalMs` between reconciles and enqueues the cluster the moment its
 * primary stops answering, so failure detection does not wait for the next periodic reconcile.
 */
export class PrimaryWatchdog {
  private readonly primaries = new Map<string, { key: ObjectKey; endpoint: RedisEndpoint }>();
  private timer: NodeJS.Timeout | undefined;
  private probing = false;

  constructor(
    private readonly admin: RedisAdmin,
    private readonly enqueue: (key: ObjectKey) => void,
    private readonly intervalMs = 500,
  ) {}

  watch(key: ObjectKey, endpoint: RedisEndpoint | undefined): void {
    if (endpoint) this.primaries.set(objectKeyToString(key), { key, endpoint });
    else this.primaries.delete(objectKeyToString(key));
  }

  forget(key: ObjectKey): void {
    this.primaries.delete(objectKeyToString(key));
  }

  start(): void {
    this.timer ??= setInterval(() => void this.probeAll(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private async probeAll(): Promise<void> {
    // One round at a time: a round slowed by frozen servers must not pile up behind itself.
    if (this.probing) return;
    this.probing = true;
    try {
      await Promise.all(
        [...this.primaries.values()].map(async ({ key, endpoint }) => {
          const observation = await this.admin.probe(endpoint);
          if (!observation.reachable || observation.role !== 'primary') this.enqueue(key);
        }),
      );
    } finally {
      this.probing = false;
    }
  }
}
