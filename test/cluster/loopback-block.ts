import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processStartTicks } from './process/process-tag';

const LOCK_FOLDER = join(tmpdir(), 'redkite-loopback-blocks');
// 127.0.x is left to the host (127.0.0.1 serves etcd, the apiserver and the agent's control API).
const FIRST_OCTET = 10;
const LAST_OCTET = 250;

/**
 * A /16 of the loopback network owned by one cluster, so that several clusters on one machine (parallel test
 * runs, a `cluster:up` next to `npm test`) never hand out the same pod IP or ClusterIP.
 * Layout: ClusterIPs in `127.B.0.0/20` (4096 Services: two per RedisCluster, so benchmarks with 1000 clusters fit),
 * pod IPs in `127.B.16.1` … `127.B.254.254`.
 */
export class LoopbackBlock {
  private constructor(readonly secondOctet: number, private readonly lockFile: string) {}

  /** The Service ClusterIP range given to kube-apiserver. */
  get serviceClusterIpRange(): string { return `127.${this.secondOctet}.0.0/20`; }
  /** The `kubernetes` Service's ClusterIP (the first of the range), which the apiserver certificate must name. */
  get kubernetesServiceIp(): string { return `127.${this.secondOctet}.0.1`; }
  /** `127.B.0.0/16`, for display. */
  get cidr(): string { return `127.${this.secondOctet}.0.0/16`; }
  /** Prefix of pod IPs: `127.B.`. */
  get podIpPrefix(): string { return `127.${this.secondOctet}.`; }
  /** Pod IPs start above the Service range. */
  get firstPodThirdOctet(): number { return 16; }

  /**
   * Reserves a free block with an exclusive lock file holding our PID and start time; a lock whose process is
   * gone is taken over.
   */
  static reserve(): LoopbackBlock {
    mkdirSync(LOCK_FOLDER, { recursive: true });
    const offset = process.pid % (LAST_OCTET - FIRST_OCTET + 1);
    for (let attempt = 0; attempt <= LAST_OCTET - FIRST_OCTET; attempt++) {
      const octet = FIRST_OCTET + ((offset + attempt) % (LAST_OCTET - FIRST_OCTET + 1));
      const lockFile = join(LOCK_FOLDER, `127.${octet}.lock`);
      const owner = JSON.stringify({ pid: process.pid, startTicks: processStartTicks(process.pid) });
      try {
        writeFileSync(lockFile, owner, { flag: 'wx' });
        return new LoopbackBlock(octet, lockFile);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        if (isStale(lockFile)) {
          rmSync(lockFile, { force: true });
          attempt--; // try the same block again
        }
      }
    }
    throw new Error(`no free loopback block: every lock in ${LOCK_FOLDER} is held by a live process`);
  }

  /** Gives the block back. */
  release(): void {
    rmSync(this.lockFile, { force: true });
  }
}

function isStale(lockFile: string): boolean {
  try {
    const { pid, startTicks } = JSON.parse(readFileSync(lockFile, 'utf8')) as { pid: number; startTicks?: number };
    return processStartTicks(pid) !== startTicks;
  } catch {
    // Unreadable or half-written: only treat it as stale when it is old enough not to be mid-write.
    return false;
  }
}
