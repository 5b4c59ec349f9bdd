/**
 * Typed errors of the controller runtime. A reconciler throws {@link TerminalError} for problems that retrying
 * cannot fix (a bad spec) and anything else — typically {@link TransientError} — for problems worth retrying
 * with per-key backoff.
 */

/** A reconcile failure that must not be retried: the caller reports it (in status, as an Event) and waits for a change. */
export class TerminalError extends Error {
  constructor(message: string, options?: { readonly cause?: unknown }) {
    super(message, options);
    this.name = 'TerminalError';
  }
}

/** A failure expected to go away by itself; the key is retried with per-key exponential backoff. */
export class TransientError extends Error {
  constructor(message: string, options?: { readonly cause?: unknown }) {
    super(message, options);
    this.name = 'TransientError';
  }
}

/** The Kubernetes API answered with a non-2xx status. */
export class KubernetesApiError extends Error {
  /** HTTP status code (404, 409, 410, 422, ...). */
  public readonly statusCode: number;
  /** `Status.reason` from the response body when present (`NotFound`, `Conflict`, `Expired`, ...). */
  public readonly reason: string | undefined;
  /** The decoded response body (usually a `Status` object). */
  public readonly body: unknown;

  constructor(method: string, path: string, statusCode: number, body: unknown) {
    const status = isRecord(body) ? body : {};
    const detail = typeof status.message === 'string' ? status.message : String(body ?? '').slice(0, 300);
    super(`${method} ${path} failed with HTTP ${statusCode}: ${detail}`);
    this.name = 'KubernetesApiError';
    this.statusCode = statusCode;
    this.reason = typeof status.reason === 'string' ? status.reason : undefined;
    this.body = body;
  }
}

/** The request never got an HTTP answer (connection refused, reset, TLS, timeout). */
export class KubernetesTransportError extends Error {
  constructor(method: string, path: string, options: { readonly cause: unknown }) {
    super(`${method} ${path} failed before an HTTP answer: ${describeCause(options.cause)}`, options);
    this.name = 'KubernetesTransportError';
  }
}

/** Thrown by {@link LeaderElector} users when leadership was lost while work was still running. */
export class LeadershipLostError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LeadershipLostError';
  }
}

/**
 * The HTTP status of an API error, duck-typed so it also recognises errors raised in another realm (jest's module
 * sandbox) or by client-node's own `ApiException` (`code`).
 */
export function httpStatusOf(error: unknown): number | undefined {
  if (!isRecord(error)) return undefined;
  if (typeof error.statusCode === 'number') return error.statusCode;
  if (typeof error.code === 'number') return error.code;
  return undefined;
}

export function isNotFound(error: unknown): boolean {
  return httpStatusOf(error) === 404;
}

export function isConflict(error: unknown): boolean {
  return httpStatusOf(error) === 409;
}

/** 410 Gone: a resourceVersion (or continue token) is older than what etcd still keeps. */
export function isGone(error: unknown): boolean {
  return httpStatusOf(error) === 410;
}

export function isTerminalError(error: unknown): boolean {
  return error instanceof TerminalError || (isRecord(error) && error.name === 'TerminalError');
}

export function describeCause(cause: unknown): string {
  if (cause instanceof Error) return cause.message;
  if (isRecord(cause) && typeof cause.message === 'string') return cause.message;
  return String(cause);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
