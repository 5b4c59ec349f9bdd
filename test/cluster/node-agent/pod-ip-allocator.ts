/**
 * Hands out pod IPs from `<prefix>1.1` … `<prefix>254.254` (prefix `127.B.`), round robin: a fresh address
 * per pod incarnation, never one that is still in use, and the least recently released one when it wraps,
 * so a client holding a stale address of a deleted pod does not reach its successor by accident.
 */
export class PodIpAllocator {
  private readonly inUse = new Set<string>();
  private next = 0;
  private static readonly CAPACITY = 254 * 254;

  constructor(private readonly prefix: string) {}

  /** Takes a free address. Throws when every address is in use. */
  allocate(): string {
    for (let tries = 0; tries < PodIpAllocator.CAPACITY; tries++) {
      const index = this.next;
      this.next = (this.next + 1) % PodIpAllocator.CAPACITY;
      const ip = `${this.prefix}${1 + Math.floor(index / 254)}.${1 + (index % 254)}`;
      if (!this.inUse.has(ip)) {
        this.inUse.add(ip);
        return ip;
      }
    }
    throw new Error(`no free pod IP left in ${this.prefix}0.0/16`);
  }

  /** Returns an address once no process of its pod is left. */
  release(ip: string): void {
    this.inUse.delete(ip);
  }
}
