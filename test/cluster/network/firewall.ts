import { execFile } from 'node:child_process';

/** iptables is missing, or refuses to change rules (not root); the message says how to fix it. */
export class FirewallUnavailableError extends Error {
  override readonly name = 'FirewallUnavailableError';
}

/** One iptables invocation failed for another reason. */
export class FirewallCommandError extends Error {
  override readonly name = 'FirewallCommandError';
}

/** The rules of one cluster that are still installed, as `iptables -S` lines (empty when clean). */
export type FirewallLeftovers = string[];

interface ChainNames {
  /** filter table, jumped to from INPUT and OUTPUT: DROP rules of partitions. */
  readonly filter: string;
  /** nat table, jumped to from POSTROUTING: source addresses given to processes by group id. */
  readonly nat: string;
}

/** Jumps into the cluster's chains, per table. */
const HOOKS = { filter: ['INPUT', 'OUTPUT'], nat: ['POSTROUTING'] } as const;

/**
 * The packet-filter rules of one cluster, kept in chains of its own (named after its loopback block, so that
 * parallel clusters never touch each other's rules) and created on first use, so a cluster that injects no
 * network fault needs neither iptables nor root.
 *
 * Why it works on loopback: every packet between two local addresses passes OUTPUT on the way out and INPUT on
 * the way back in, and the filter table drops established flows as well as new ones, so a DROP on an address
 * pair cuts a connection exactly as a pulled cable would (retransmissions, then timeouts; no reset). A rule
 * pair is installed once per partition; healing deletes one copy, so overlapping partitions heal independently.
 *
 * SNAT by group id gives a process (the controller under test) its own source address without any change to
 * its code: the first packet of each of its connections to the cluster's block is rewritten in POSTROUTING.
 * Filter OUTPUT sees that packet before the rewrite and INPUT after it, so the DROP pair is matched in both
 * chains and in both directions.
 */
export class ClusterFirewall {
  private installed = false;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly secondOctet: number) {}

  /** The cluster's loopback block (`127.B.0.0/16`), where SNAT applies. */
  get blockCidr(): string {
    return `127.${this.secondOctet}.0.0/16`;
  }

  /** Drops every packet between the two addresses, both directions, established connections included. */
  dropBetween(first: string, second: string): Promise<void> {
    return this.serialized(async () => {
      await this.ensureInstalled();
      const chain = chainNamesFor(this.secondOctet).filter;
      await iptables(['-t', 'filter', '-A', chain, ...dropRule(first, second)]);
      await iptables(['-t', 'filter', '-A', chain, ...dropRule(second, first)]);
    });
  }

  /** Removes one copy of the rule pair {@link dropBetween} installed. */
  allowBetween(first: string, second: string): Promise<void> {
    return this.serialized(async () => {
      const chain = chainNamesFor(this.secondOctet).filter;
      await iptables(['-t', 'filter', '-D', chain, ...dropRule(first, second)]);
      await iptables(['-t', 'filter', '-D', chain, ...dropRule(second, first)]);
    });
  }

  /** Connections that processes of this group id open to the cluster's block leave from `sourceAddress`. */
  translateGroup(groupId: number, sourceAddress: string): Promise<void> {
    return this.serialized(async () => {
      await this.ensureInstalled();
      await iptables(['-t', 'nat', '-A', chainNamesFor(this.secondOctet).nat, ...this.snatRule(groupId, sourceAddress)]);
    });
  }

  /** Undoes {@link translateGroup} (connections already translated keep their address until they close). */
  untranslateGroup(groupId: number, sourceAddress: string): Promise<void> {
    return this.serialized(async () => {
      await iptables(['-t', 'nat', '-D', chainNamesFor(this.secondOctet).nat, ...this.snatRule(groupId, sourceAddress)]);
    });
  }

  /** Removes the chains and the jumps into them, whatever they hold. */
  removeAll(): Promise<void> {
    return this.serialized(async () => {
      await removeClusterFirewallRules(this.secondOctet);
      this.installed = false;
    });
  }

  private snatRule(groupId: number, sourceAddress: string): string[] {
    return ['-m', 'owner', '--gid-owner', String(groupId), '-d', this.blockCidr, '-j', 'SNAT', '--to-source', sourceAddress];
  }

  private async ensureInstalled(): Promise<void> {
    if (this.installed) return;
    // A crashed earlier cluster may have held this block: its rules must not leak into this one.
    await removeClusterFirewallRules(this.secondOctet);
    const chains = chainNamesFor(this.secondOctet);
    for (const table of ['filter', 'nat'] as const) {
      await iptables(['-t', table, '-N', chains[table]]);
      for (const hook of HOOKS[table]) await iptables(['-t', table, '-I', hook, '1', '-j', chains[table]]);
    }
    this.installed = true;
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const result = this.queue.then(work);
    this.queue = result.catch(() => undefined);
    return result;
  }
}

/** The rules of the cluster with this loopback block still installed (`iptables -S` lines), for leak checks. */
export async function findClusterFirewallRules(secondOctet: number): Promise<FirewallLeftovers> {
  const chains = chainNamesFor(secondOctet);
  const found: string[] = [];
  for (const table of ['filter', 'nat'] as const) {
    const listing = await iptablesIfAvailable(['-t', table, '-S']);
    if (listing === undefined) return [];
    for (const line of listing.split('\n')) {
      if (line.split(' ').includes(chains[table])) found.push(`-t ${table} ${line}`);
    }
  }
  return found;
}

/**
 * Deletes the jumps into the cluster's chains and the chains themselves (idempotent; a machine without
 * iptables has nothing to remove). Used on heal-all, at shutdown and by `cluster:down` after a crashed daemon.
 */
export async function removeClusterFirewallRules(secondOctet: number): Promise<void> {
  const chains = chainNamesFor(secondOctet);
  for (const table of ['filter', 'nat'] as const) {
    const listing = await iptablesIfAvailable(['-t', table, '-S']);
    if (listing === undefined) return;
    const lines = listing.split('\n');
    for (const hook of HOOKS[table]) {
      const jump = `-A ${hook} -j ${chains[table]}`;
      for (const line of lines) if (line.trim() === jump) await iptables(['-t', table, '-D', hook, '-j', chains[table]]);
    }
    if (lines.some((line) => line.trim() === `-N ${chains[table]}`)) {
      await iptables(['-t', table, '-F', chains[table]]);
      await iptables(['-t', table, '-X', chains[table]]);
    }
  }
}

/** The names of the chains of the cluster that owns `127.<secondOctet>.0.0/16`. */
export function chainNamesFor(secondOctet: number): ChainNames {
  if (!Number.isInteger(secondOctet) || secondOctet < 0 || secondOctet > 255) throw new RangeError(`not an address octet: ${secondOctet}`);
  return { filter: `REDKITE-127-${secondOctet}`, nat: `REDKITE-127-${secondOctet}-SNAT` };
}

function dropRule(source: string, destination: string): string[] {
  return ['-s', `${source}/32`, '-d', `${destination}/32`, '-j', 'DROP'];
}

async function iptablesIfAvailable(args: string[]): Promise<string | undefined> {
  try {
    return await iptables(args);
  } catch (error) {
    if (error instanceof FirewallUnavailableError) return undefined;
    throw error;
  }
}

// `-w` waits for the xtables lock instead of failing when another iptables runs at the same time.
function iptables(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('iptables', ['-w', '5', ...args], { timeout: 15_000 }, (error, stdout, stderr) => {
      if (!error) return resolve(stdout);
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') {
        return reject(new FirewallUnavailableError(
          'iptables is not installed; network faults (partitions, a controller source address) need it: ' +
            '`sudo apt-get install -y iptables` (Debian/Ubuntu), and run the tests as root',
        ));
      }
      if (/Permission denied|you must be root|Operation not permitted/i.test(stderr)) {
        return reject(new FirewallUnavailableError(`iptables refused (${stderr.trim()}): network faults need root (CAP_NET_ADMIN)`));
      }
      reject(new FirewallCommandError(`iptables ${args.join(' ')} failed: ${stderr.trim() || error.message}`, { cause: error }));
    });
  });
}
