import { JitteredBackoff } from '../backoff';
import { Clock, sleep, systemClock } from '../clock';
import { isConflict, TransientError } from '../errors';
import type { KubernetesObject } from '../kubernetes-object';
import type { ObjectReader, ObjectWriter } from './kubernetes-client';
import { referenceOf } from './kubernetes-client';

/** Options of {@link addFinalizer} and {@link removeFinalizer}. */
export interface FinalizerUpdateOptions {
  /**
   * Attempts before giving up when the object keeps changing under us (409 Conflict).
   * @default 5
   */
  readonly maxAttempts?: number;
  /** @default systemClock */
  readonly clock?: Clock;
  readonly signal?: AbortSignal;
}

/** Adds `finalizer` to `object` unless present; returns the object as stored. */
export function addFinalizer<T extends KubernetesObject>(
  client: ObjectReader & ObjectWriter,
  object: T,
  finalizer: string,
  options: FinalizerUpdateOptions = {},
): Promise<T> {
  return updateFinalizers(client, object, (finalizers) => (finalizers.includes(finalizer) ? undefined : [...finalizers, finalizer]), options);
}

/** Removes `finalizer` from `object` if present; returns the object as stored (or as last read when nothing changed). */
export function removeFinalizer<T extends KubernetesObject>(
  client: ObjectReader & ObjectWriter,
  object: T,
  finalizer: string,
  options: FinalizerUpdateOptions = {},
): Promise<T> {
  return updateFinalizers(
    client,
    object,
    (finalizers) => (finalizers.includes(finalizer) ? finalizers.filter((f) => f !== finalizer) : undefined),
    options,
  );
}

/**
 * Writes a new finalizer list with optimistic concurrency: the merge patch carries the resourceVersion it was computed
 * from, so the apiserver answers 409 if anyone else changed the object (another finalizer added meanwhile would
 * otherwise be overwritten, because a merge patch replaces the whole list). On 409 it re-reads and recomputes.
 */
async function updateFinalizers<T extends KubernetesObject>(
  client: ObjectReader & ObjectWriter,
  object: T,
  change: (finalizers: readonly string[]) => string[] | undefined,
  options: FinalizerUpdateOptions,
): Promise<T> {
  const maxAttempts = options.maxAttempts ?? 5;
  const clock = options.clock ?? systemClock;
  const backoff = new JitteredBackoff({ initialDelayMs: 10, maxDelayMs: 1000 });
  const reference = referenceOf(object);
  let current = object;
  for (let attempt = 1; ; attempt += 1) {
    const finalizers = change(current.metadata?.finalizers ?? []);
    if (finalizers === undefined) return current;
    try {
      return await client.mergePatch<T>(
        reference,
        { metadata: { resourceVersion: current.metadata?.resourceVersion, finalizers } },
        { signal: options.signal },
      );
    } catch (error) {
      if (!isConflict(error)) throw error;
      if (attempt >= maxAttempts) {
        throw new TransientError(`finalizers of ${reference.kind} ${reference.namespace ?? ''}/${reference.name} kept conflicting after ${attempt} attempts`, {
          cause: error,
        });
      }
      await sleep(clock, backoff.nextDelayMs(), options.signal);
      current = await client.get<T>(reference, { signal: options.signal });
    }
  }
}
