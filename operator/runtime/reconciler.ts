import type { Logger } from 'pino';
import type { ObjectKey } from './kubernetes-object';

/**
 * What a reconcile asks for next. Returning nothing means "done until something changes"; throwing means "retry
 * with backoff" (or never, for a `TerminalError`).
 */
export interface ReconcileResult {
  /** Reconcile this key again after this long (e.g. to poll something outside Kubernetes). Resets the backoff. */
  readonly requeueAfterMs?: number;
  /** Reconcile again soon through the rate limiter (per-key backoff) without counting an error. */
  readonly requeue?: boolean;
}

/** Per-call context handed to a reconciler. */
export interface ReconcileContext {
  /** Child logger carrying `controller`, `key`, `namespace`, `name` and `reconcileId`. */
  readonly logger: Logger;
  /** Aborts when the controller shuts down past its deadline or leadership is lost: stop writing at once. */
  readonly signal: AbortSignal;
  /** Unique per call, to correlate log lines. */
  readonly reconcileId: string;
  /** How many times this key has been retried since its last success (0 on a first attempt). */
  readonly retries: number;
}

/**
 * The whole reconcile contract: a namespace/name key in, a requeue decision out. The reconciler re-reads the world
 * (from the cache) and never learns which event triggered it.
 */
export type Reconciler = (key: ObjectKey, context: ReconcileContext) => Promise<ReconcileResult | void>;
