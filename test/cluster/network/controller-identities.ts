import { ApiServerProxy, type ApiServerProxyOptions, type WatchResumeResult, type WatchStallView } from '../control-plane/apiserver-proxy';
import type { ClusterFirewall } from './firewall';

/**
 * A controller under test as the harness knows it: the address its Redis connections come from and the
 * apiserver URL whose watches the harness can stall. Start the controller process with `groupId` as its group
 * (spawn option `gid`) and a kubeconfig whose server is `apiServerUrl`.
 */
export interface ControllerIdentityView {
  readonly name: string;
  /** `127.B.255.n`: the source address of the controller's connections into the cluster's block. */
  readonly sourceAddress: string;
  /** The group id the controller process must run with: the SNAT rule that gives it `sourceAddress` matches it. */
  readonly groupId: number;
  /** HTTPS URL of the controller's own apiserver proxy (same CA as the apiserver). */
  readonly apiServerUrl: string;
  readonly watches: WatchStallView;
}

/** A registration the harness refuses: bad name (400) or a name already in use (409). */
export class ControllerIdentityError extends Error {
  override readonly name = 'ControllerIdentityError';
  constructor(readonly statusCode: 400 | 404 | 409, message: string) {
    super(message);
  }
}

interface Identity {
  readonly name: string;
  readonly index: number;
  readonly sourceAddress: string;
  readonly groupId: number;
  readonly apiServerUrl: string;
  readonly proxy: ApiServerProxy;
}

/** What the registry needs from the cluster. */
export interface ControllerIdentitiesOptions {
  readonly firewall: ClusterFirewall;
  /** Second octet of the cluster's loopback block. */
  readonly secondOctet: number;
  /** How the proxies reach the apiserver and present themselves. */
  readonly proxy: Omit<ApiServerProxyOptions, 'warn'>;
  readonly warn: (message: string, error?: unknown) => void;
  /** An identity was removed: its partitions must heal. */
  readonly onRemoved: (name: string) => Promise<void>;
}

// 127.B.255.x lies above the pod range (third octets 16–254) and the ClusterIP range (0–15): never a pod's.
const SOURCE_THIRD_OCTET = 255;
const MAX_IDENTITIES = 254;
// Group ids far above any real group; one per cluster block and identity, so parallel clusters never collide.
const GROUP_ID_BASE = 2_000_000_000;
const NAME_PATTERN = /^[a-z0-9]([-a-z0-9.]{0,61}[a-z0-9])?$/;

/**
 * The controller identities of the cluster. The harness gives each one a loopback source address of its own,
 * by SNAT on the process's group id (no change to the controller's code, whatever Redis client it uses), so that
 * a partition can cut a pod off from that controller alone while the Service proxy, other pods and the test
 * itself (all from 127.0.0.1 or their own pod IPs) still reach it; and a TLS proxy in front of the apiserver
 * whose watches can be stalled. On a real node the same identity is the controller pod's IP and its kubeconfig.
 */
export class ControllerIdentities {
  private readonly identities = new Map<string, Identity>();
  private nextIndex = 0;

  constructor(private readonly options: ControllerIdentitiesOptions) {}

  async register(name: string): Promise<ControllerIdentityView> {
    if (!NAME_PATTERN.test(name)) throw new ControllerIdentityError(400, `controller name ${JSON.stringify(name)} is not a DNS-1123 subdomain`);
    if (this.identities.has(name)) throw new ControllerIdentityError(409, `controller ${name} is already registered; unregister it first`);
    const index = this.takeIndex();
    const sourceAddress = `127.${this.options.secondOctet}.${SOURCE_THIRD_OCTET}.${index}`;
    const groupId = GROUP_ID_BASE + this.options.secondOctet * 256 + index;
    const proxy = new ApiServerProxy({ ...this.options.proxy, warn: this.options.warn });
    const apiServerUrl = await proxy.listen();
    try {
      await this.options.firewall.translateGroup(groupId, sourceAddress);
    } catch (error) {
      await proxy.close();
      throw error;
    }
    const identity: Identity = { name, index, sourceAddress, groupId, apiServerUrl, proxy };
    this.identities.set(name, identity);
    return view(identity);
  }

  /** The identity's address for partitions, or undefined if unknown. */
  sourceAddressOf(name: string): string | undefined {
    return this.identities.get(name)?.sourceAddress;
  }

  get(name: string): ControllerIdentityView {
    return view(this.require(name));
  }

  list(): ControllerIdentityView[] {
    return [...this.identities.values()].map(view);
  }

  stallWatches(name: string): WatchStallView {
    return this.require(name).proxy.stallWatches();
  }

  resumeWatches(name: string): WatchResumeResult {
    return this.require(name).proxy.resumeWatches();
  }

  /** Removes the identity: its SNAT rule, its proxy (closing its connections) and its partitions. */
  async unregister(name: string): Promise<void> {
    const identity = this.require(name);
    this.identities.delete(name);
    await this.options.onRemoved(name);
    await identity.proxy.close();
    await this.options.firewall.untranslateGroup(identity.groupId, identity.sourceAddress);
  }

  async unregisterAll(): Promise<void> {
    for (const name of [...this.identities.keys()]) await this.unregister(name);
  }

  private require(name: string): Identity {
    const identity = this.identities.get(name);
    if (!identity) throw new ControllerIdentityError(404, `no controller ${name} is registered`);
    return identity;
  }

  // Round robin over 1–254, like pod IPs: an address just given up is the last to be handed out again.
  private takeIndex(): number {
    const inUse = new Set([...this.identities.values()].map((identity) => identity.index));
    for (let tries = 0; tries < MAX_IDENTITIES; tries++) {
      const index = 1 + (this.nextIndex++ % MAX_IDENTITIES);
      if (!inUse.has(index)) return index;
    }
    throw new ControllerIdentityError(409, `all ${MAX_IDENTITIES} controller identities are in use`);
  }
}

function view(identity: Identity): ControllerIdentityView {
  return {
    name: identity.name,
    sourceAddress: identity.sourceAddress,
    groupId: identity.groupId,
    apiServerUrl: identity.apiServerUrl,
    watches: identity.proxy.view(),
  };
}
