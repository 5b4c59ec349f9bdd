import type { ObjectKey } from '../runtime';
import { objectKeyToString } from '../runtime';
import type { RedisAdministration, RedisEndpoint } from '../redis';

/**
 * Probes every cluster's primary every `intervalMs` between reconciles and enqueues the cluster the moment its
 * primary stops answering, so failure detection does not wait for the next periodic reconcile.
 */
export class PrimaryWatchdog {
  private readonly primaries = new Map<string, { key: ObjectKey; endpoint: RedisEndpoint }>();
  private timer: NodeJS.Timeout | undefined;
  private probing = false;

  constructor(
    private readonly admin: Pick<RedisAdministration, 'probe'>,
    private readonly enqueue: (key: ObjectKey) => void,
    private readonly intervalMs = 500,
    private readonly warn: (message: string, error: unknown) => void = () => undefined,
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
          try {
            const observation = await this.admin.probe(endpoint);
            if (!observation.reachable || observation.role !== 'primary') this.enqueue(key);
          } catch (error) {
            // probe() never throws for a server problem; anything else is a bug to report, and the cluster is looked
            // at again rather than the process ended by an unhandled rejection.
            this.warn('primary probe failed unexpectedly', error);
            this.enqueue(key);
          }
        }),
      );
    } finally {
      this.probing = false;
    }
  }
}
