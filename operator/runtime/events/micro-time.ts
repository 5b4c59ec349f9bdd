/**
 * Kubernetes `MicroTime` (RFC 3339 with exactly six fractional digits). The apiserver rejects the three digits that
 * `Date.toISOString()` produces.
 */
export function toMicroTime(epochMs: number): string {
  return new Date(epochMs).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
