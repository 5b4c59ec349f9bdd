/** A parsed `host:port` bind address; `port` 0 picks a free port. */
export interface BindAddress {
  readonly host: string;
  readonly port: number;
}

/**
 * Parses controller-runtime style bind addresses: `':8080'` (all interfaces), `'127.0.0.1:8080'`, `'[::1]:8080'`.
 * Returns `undefined` for `'0'` or `''`, which disable the server.
 */
export function parseBindAddress(address: string): BindAddress | undefined {
  if (address === '' || address === '0') return undefined;
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(address);
  if (!match) throw new RangeError(`bind address must look like ":8080" or "127.0.0.1:8080", got "${address}"`);
  const port = Number(match[3]);
  if (port > 65535) throw new RangeError(`port out of range in bind address "${address}"`);
  return { host: match[1] ?? (match[2] || '0.0.0.0'), port };
}
