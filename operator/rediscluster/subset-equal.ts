/**
 * True when every field of `desired` has the same value in `live`. The apiserver adds defaults and metadata, so
 * live objects are supersets of what we apply; any difference in a field we own means an apply is needed.
 * Arrays are compared element by element (same length), each element as a subset.
 */
export function isSubsetOf(desired: unknown, live: unknown): boolean {
  if (desired === undefined) return true;
  if (desired === null || typeof desired !== 'object') {
    // Kubernetes may render numbers we send as strings in some int-or-string fields, and vice versa.
    return desired === live || (live !== undefined && live !== null && String(desired) === String(live) && typeof live !== 'object');
  }
  if (Array.isArray(desired)) {
    return Array.isArray(live) && live.length === desired.length && desired.every((item, index) => isSubsetOf(item, live[index]));
  }
  if (live === null || typeof live !== 'object' || Array.isArray(live)) return false;
  const liveRecord = live as Record<string, unknown>;
  return Object.entries(desired as Record<string, unknown>).every(([key, value]) => isSubsetOf(value, liveRecord[key]));
}
