import type { ApiServerProxyOptions } from '../control-plane/apiserver-proxy';
import { ControllerIdentities } from './controller-identities';
import { ClusterFirewall, removeClusterFirewallRules } from './firewall';
import { PartitionRequestError, Partitions, type NetworkPeer, type ResolvedPeer } from './partitions';

/** What the network faults of a cluster need. */
export interface NetworkFaultsOptions {
  /** Second octet of the cluster's loopback block (`127.B.0.0/16`). */
  readonly secondOctet: number;
  /** A pod's UID and current address (throws for a pod the node does not run). */
  readonly podAddress: (namespace: string, name: string) => { uid: string; podIp: string };
  /** How controller proxies reach the apiserver and present themselves. */
  readonly apiServerProxy: Omit<ApiServerProxyOptions, 'warn'>;
  readonly warn: (message: string, error?: unknown) => void;
}

/**
 * The network side of the chaos API for one cluster: partitions between pods and controller identities, and the
 * identities themselves (source address, watch-stall proxy). Everything it installs lives in the cluster's own
 * iptables chains and is removed by {@link stop}, and again by `cluster:down` should the daemon have died.
 */
export class NetworkFaults {
  readonly partitions: Partitions;
  readonly controllers: ControllerIdentities;
  private readonly firewall: ClusterFirewall;

  private constructor(private readonly options: NetworkFaultsOptions) {
    this.firewall = new ClusterFirewall(options.secondOctet);
    this.partitions = new Partitions(this.firewall, (peer) => this.resolve(peer));
    this.controllers = new ControllerIdentities({
      firewall: this.firewall,
      secondOctet: options.secondOctet,
      proxy: options.apiServerProxy,
      warn: options.warn,
      onRemoved: (name) => this.partitions.ownerGone(controllerOwner(name)),
    });
  }

  /** Removes whatever a crashed earlier cluster of the same loopback block left in iptables, then starts empty. */
  static async start(options: NetworkFaultsOptions): Promise<NetworkFaults> {
    await removeClusterFirewallRules(options.secondOctet);
    return new NetworkFaults(options);
  }

  /** A pod incarnation finished: its partitions heal (its IP may go to another pod). */
  podFinished(uid: string): void {
    this.partitions.ownerGone(podOwner(uid)).catch((error: unknown) => this.options.warn(`healing the partitions of pod ${uid} failed`, error));
  }

  /** Heals everything, closes the proxies and deletes the cluster's chains. */
  async stop(): Promise<void> {
    // Each step on its own: the chains must go even when healing one rule failed.
    for (const [step, run] of [
      ['unregistering controller identities', () => this.controllers.unregisterAll()],
      ['healing partitions', () => this.partitions.healAll()],
    ] as const) {
      await run().catch((error: unknown) => this.options.warn(`${step} failed`, error));
    }
    await this.firewall.removeAll();
  }

  private resolve(peer: NetworkPeer): ResolvedPeer {
    if ('controller' in peer) {
      const address = this.controllers.sourceAddressOf(peer.controller);
      if (!address) throw new PartitionRequestError(`no controller ${peer.controller} is registered (POST /controllers first)`, 404);
      return { address, owner: controllerOwner(peer.controller) };
    }
    const { uid, podIp } = this.options.podAddress(peer.namespace, peer.pod);
    return { address: podIp, owner: podOwner(uid) };
  }
}

function podOwner(uid: string): string {
  return `pod:${uid}`;
}

function controllerOwner(name: string): string {
  return `controller:${name}`;
}
