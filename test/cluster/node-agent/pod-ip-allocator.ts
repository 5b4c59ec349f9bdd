/**
 * Hands out pod IPs from `<prefix><first>.1` … `<prefix>254.254` (prefix `127.B.`), round robin: a fresh address
 * per pod incarnation, never one that is still in use, and the least recently released one when it wraps,
 * so a client holding a stale address of a deleted pod does not reach its successor by accident.
 */
export class PodIpAllocator {
  private readonly inUse = new Set<string>();
  private next = 0;
  private readonly capacity: number;

  /** @param firstThirdOctet lowest third octet handed out, so pod IPs stay clear of the Service range. @default 1 */
  constructor(
    private readonly prefix: string,
    private readonly firstThirdOctet = 1,
  ) {
    this.capacity = (255 - firstThirdOctet) * 254;
  }

  /** Takes a free address. Throws when every address is in use. */
  allocate(): string {
    for (let tries = 0; tries < this.capacity; tries++) {
      const index = this.next;
      this.next = (this.next + 1) % this.capacity;
      const ip = `${this.prefix}${this.firstThirdOctet + Math.floor(index / 254)}.${1 + (index % 254)}`;
      if (!this.inUse.has(ip)) {
        this.inUse.add(ip);
        return ip;
      }
    }
    throw new Error(`no free pod IP left in ${this.prefix}${this.firstThirdOctet}.0 – ${this.prefix}254.254`);
  }

  /** Returns an address once no process of its pod is left. */
  release(ip: string): void {
    this.inUse.delete(ip);
  }
}
