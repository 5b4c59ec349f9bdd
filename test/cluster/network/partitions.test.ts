import type { ClusterFirewall } from './firewall';
import { parseNetworkPeer, PartitionRequestError, Partitions, type NetworkPeer } from './partitions';

/** Records the rule pairs a real firewall would hold, as a multiset (each partition installs its own copy). */
function fakeFirewall(): { firewall: ClusterFirewall; pairs: string[] } {
  const pairs: string[] = [];
  const firewall = {
    dropBetween: async (first: string, second: string) => void pairs.push(`${first}|${second}`),
    allowBetween: async (first: string, second: string) => void pairs.splice(pairs.indexOf(`${first}|${second}`), 1),
  } as unknown as ClusterFirewall;
  return { firewall, pairs };
}

const addresses: Record<string, { address: string; owner: string }> = {
  'ns/a': { address: '127.9.16.1', owner: 'pod:uid-a' },
  'ns/b': { address: '127.9.16.2', owner: 'pod:uid-b' },
  'controller/c': { address: '127.9.255.1', owner: 'controller:c' },
};
const resolve = (peer: NetworkPeer): { address: string; owner: string } => {
  const found = addresses['controller' in peer ? `controller/${peer.controller}` : `${peer.namespace}/${peer.pod}`];
  if (!found) throw new PartitionRequestError('unknown', 404);
  return found;
};
const a: NetworkPeer = { namespace: 'ns', pod: 'a' };
const b: NetworkPeer = { namespace: 'ns', pod: 'b' };
const c: NetworkPeer = { controller: 'c' };

describe('Partitions', () => {
  it('installs one rule pair per partition and removes exactly that pair on heal', async () => {
    const { firewall, pairs } = fakeFirewall();
    const partitions = new Partitions(firewall, resolve);
    const first = await partitions.partition(a, b);
    const second = await partitions.partition(b, a);
    expect(pairs).toEqual(['127.9.16.1|127.9.16.2', '127.9.16.2|127.9.16.1']);
    expect(await partitions.heal(first.id)).toBe(true);
    expect(pairs).toEqual(['127.9.16.2|127.9.16.1']);
    expect(partitions.list().map((partition) => partition.id)).toEqual([second.id]);
  });

  it('reports a second heal of the same partition as already healed', async () => {
    const { firewall } = fakeFirewall();
    const partitions = new Partitions(firewall, resolve);
    const partition = await partitions.partition(a, c);
    expect([await partitions.heal(partition.id), await partitions.heal(partition.id)]).toEqual([true, false]);
  });

  it('keeps a partition listed until its rules are gone, and heals it once when asked twice at the same time', async () => {
    const { firewall, pairs } = fakeFirewall();
    let releaseRemoval: () => void = () => undefined;
    const removal = new Promise<void>((resolve) => (releaseRemoval = resolve));
    const slowFirewall = { ...firewall, allowBetween: async (first: string, second: string) => {
      await removal;
      await firewall.allowBetween(first, second);
    } } as unknown as ClusterFirewall;
    const partitions = new Partitions(slowFirewall, resolve);
    const partition = await partitions.partition(a, b);
    const healing = [partitions.heal(partition.id), partitions.heal(partition.id)];
    expect(partitions.list()).toHaveLength(1);
    releaseRemoval();
    expect(await Promise.all(healing)).toEqual([true, false]);
    expect([partitions.list(), pairs]).toEqual([[], []]);
  });

  it('heals the partitions of an owner that went away, and only those', async () => {
    const { firewall, pairs } = fakeFirewall();
    const partitions = new Partitions(firewall, resolve);
    await partitions.partition(a, b);
    const kept = await partitions.partition(b, c);
    await partitions.ownerGone('pod:uid-a');
    expect(partitions.list().map((partition) => partition.id)).toEqual([kept.id]);
    expect(pairs).toEqual(['127.9.16.2|127.9.255.1']);
  });

  it('refuses to partition a peer from itself', async () => {
    const partitions = new Partitions(fakeFirewall().firewall, resolve);
    await expect(partitions.partition(a, a)).rejects.toThrow(/from itself/);
  });
});

describe('parseNetworkPeer', () => {
  it('accepts a pod or a controller and refuses anything else with the shape it wants', () => {
    expect(parseNetworkPeer({ namespace: 'ns', pod: 'a', extra: 1 })).toEqual({ namespace: 'ns', pod: 'a' });
    expect(parseNetworkPeer({ controller: 'c' })).toEqual({ controller: 'c' });
    expect(() => parseNetworkPeer({ pod: 'a' })).toThrow(/"namespace": \.\.\., "pod"/);
    expect(() => parseNetworkPeer(null)).toThrow(PartitionRequestError);
  });
});
