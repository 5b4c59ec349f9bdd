import type { ClusterFirewall } from './firewall';

/** One end of a partition: a pod (by namespace and name), or a controller identity registered with the harness. */
export type NetworkPeer = { readonly namespace: string; readonly pod: string } | { readonly controller: string };

/** A peer resolved to the address its packets carry, and to what it belongs to (for automatic healing). */
export interface ResolvedPeer {
  readonly address: string;
  /** `pod:<uid>` or `controller:<name>`: the partition ends when its owner goes away. */
  readonly owner: string;
}

/** A partition as the control API shows it. */
export interface PartitionView {
  readonly id: string;
  readonly between: readonly [NetworkPeer, NetworkPeer];
  /** The addresses whose packets are dropped, in the order of `between`. */
  readonly addresses: readonly [string, string];
  readonly createdAt: string;
}

/** A request the harness cannot carry out as asked (answered 400/404 by the control API). */
export class PartitionRequestError extends Error {
  override readonly name = 'PartitionRequestError';
  constructor(message: string, readonly statusCode: 400 | 404 = 400) {
    super(message);
  }
}

interface Partition extends PartitionView {
  readonly owners: readonly [string, string];
}

/**
 * The network partitions in force. A partition is bound to the incarnations of its ends — a pod's UID, a
 * controller identity — as iptables rules in a pod's network namespace would be: when a pod goes away (its IP is
 * freed and may be handed out again) or a controller identity is removed, its partitions are healed with it, so
 * a re-created pod of the same name starts connected.
 */
export class Partitions {
  private readonly active = new Map<string, Partition>();
  private readonly healing = new Map<string, Promise<boolean>>();
  private sequence = 0;

  constructor(
    private readonly firewall: ClusterFirewall,
    /** Resolves a peer to its current address; throws PartitionRequestError for an unknown one. */
    private readonly resolve: (peer: NetworkPeer) => ResolvedPeer,
  ) {}

  /** Cuts every packet between the two peers, both ways. */
  async partition(first: NetworkPeer, second: NetworkPeer): Promise<PartitionView> {
    const [a, b] = [this.resolve(first), this.resolve(second)];
    if (a.address === b.address) throw new PartitionRequestError(`cannot partition ${describePeer(first)} from itself (${a.address})`);
    await this.firewall.dropBetween(a.address, b.address);
    const partition: Partition = {
      id: `partition-${++this.sequence}`,
      between: [first, second],
      addresses: [a.address, b.address],
      owners: [a.owner, b.owner],
      createdAt: new Date().toISOString(),
    };
    this.active.set(partition.id, partition);
    return view(partition);
  }

  /**
   * Heals one partition; false if it was already healed (by hand or because an end went away). It stays listed
   * until its rules are gone, so an empty list means no rule of a partition is left.
   */
  heal(id: string): Promise<boolean> {
    const inFlight = this.healing.get(id);
    if (inFlight) return inFlight.then(() => false);
    const partition = this.active.get(id);
    if (!partition) return Promise.resolve(false);
    const healed = this.firewall.allowBetween(...partition.addresses)
      .then(() => {
        this.active.delete(id);
        return true;
      })
      .finally(() => this.healing.delete(id));
    this.healing.set(id, healed);
    return healed;
  }

  /** Heals every partition; resolves the number healed. */
  async healAll(): Promise<number> {
    const ids = [...this.active.keys()];
    for (const id of ids) await this.heal(id);
    return ids.length;
  }

  /** Heals the partitions of an owner that went away (`pod:<uid>`, `controller:<name>`). */
  async ownerGone(owner: string): Promise<void> {
    for (const partition of [...this.active.values()]) {
      if (partition.owners.includes(owner)) await this.heal(partition.id);
    }
  }

  list(): PartitionView[] {
    return [...this.active.values()].map(view);
  }
}

/** A peer in words, for messages. */
export function describePeer(peer: NetworkPeer): string {
  return 'controller' in peer ? `controller ${peer.controller}` : `pod ${peer.namespace}/${peer.pod}`;
}

/** Validates a peer from an untrusted JSON body. */
export function parseNetworkPeer(value: unknown): NetworkPeer {
  const candidate = value as Record<string, unknown> | null;
  if (candidate && typeof candidate.controller === 'string' && candidate.controller) return { controller: candidate.controller };
  if (candidate && typeof candidate.namespace === 'string' && typeof candidate.pod === 'string' && candidate.namespace && candidate.pod) {
    return { namespace: candidate.namespace, pod: candidate.pod };
  }
  throw new PartitionRequestError(`a partition end is {"namespace": ..., "pod": ...} or {"controller": ...}, not ${JSON.stringify(value)}`);
}

function view(partition: Partition): PartitionView {
  return { id: partition.id, between: partition.between, addresses: partition.addresses, createdAt: partition.createdAt };
}
