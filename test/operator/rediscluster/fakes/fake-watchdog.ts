import { objectKeyToString, type ObjectKey } from '../../../../operator/runtime/kubernetes-object';
import type { RedisEndpoint } from '../../../../operator/redis';
import type { PrimaryWatchdog } from '../../../../operator/rediscluster/primary-watchdog';

/** Remembers which primary the reconciler asked to be watched, per cluster. */
export class FakeWatchdog implements Pick<PrimaryWatchdog, 'watch' | 'forget'> {
  readonly watched = new Map<string, RedisEndpoint>();

  watch(key: ObjectKey, endpoint: RedisEndpoint | undefined): void {
    if (endpoint) this.watched.set(objectKeyToString(key), endpoint);
    else this.watched.delete(objectKeyToString(key));
  }

  forget(key: ObjectKey): void {
    this.watched.delete(objectKeyToString(key));
  }
}
