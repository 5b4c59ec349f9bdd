import { createServer } from 'node:net';

const reservedInThisProcess = new Set<string>();

/**
 * Finds `count` loopback addresses in `prefix.N` on which every one of `ports` is free, so each simulated
 * server owns an address and keeps its standard port. The scan starts at a random N so test files running in
 * parallel workers rarely try the same address.
 *
 * @param prefix first three octets. @default '127.0.3'
 * @param ports ports that must be free on each address. @default [6379]
 */
export async function allocateLoopbackHosts(
  count: number,
  prefix = '127.0.3',
  ports: readonly number[] = [6379],
): Promise<string[]> {
  const hosts: string[] = [];
  const start = 1 + Math.floor(Math.random() * 250);
  for (let step = 0; step < 254 && hosts.length < count; step++) {
    const host = `${prefix}.${((start + step) % 254) + 1}`;
    if (reservedInThisProcess.has(host)) {
      continue;
    }
    if (await allFree(host, ports)) {
      reservedInThisProcess.add(host);
      hosts.push(host);
    }
  }
  if (hosts.length < count) {
    throw new Error(`only ${hosts.length} of ${count} free loopback addresses in ${prefix}.0/24`);
  }
  return hosts;
}

/** Returns addresses to the pool of this process once their servers are stopped. */
export function releaseLoopbackHosts(hosts: readonly string[]): void {
  for (const host of hosts) {
    reservedInThisProcess.delete(host);
  }
}

async function allFree(host: string, ports: readonly number[]): Promise<boolean> {
  for (const port of ports) {
    if (!(await canListen(host, port))) {
      return false;
    }
  }
  return true;
}

function canListen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}
