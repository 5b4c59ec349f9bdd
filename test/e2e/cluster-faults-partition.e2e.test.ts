import { E2E_TEST_TIMEOUT_MILLISECONDS, k8s, loadKubeConfig, nodeAgent, useTestNamespace, waitFor, waitForPod, withRedis } from './support';
import { connectFrom, PingerProcess, redisPod } from './support/fault-probes';
import { controllerProcessOptions, podPeer, type ControllerIdentity } from './support/node-agent-client';

jest.setTimeout(E2E_TEST_TIMEOUT_MILLISECONDS);

const core = loadKubeConfig().makeApiClient(k8s.CoreV1Api);
const namespace = useTestNamespace('faults-partition');
const agent = nodeAgent();

const infoField = (info: string, field: string): string | undefined => new RegExp(`^${field}:(.*)$`, 'm').exec(info)?.[1]?.trim();
const dropRulesFor = async (address: string): Promise<string[]> => (await agent.firewallRules()).filter((rule) => rule.includes('DROP') && rule.includes(`${address}/32`));

describe('network partitions of the local cluster', () => {
  const ips: Record<string, string> = {};

  beforeAll(async () => {
    for (const name of ['left', 'right', 'bystander']) {
      await core.createNamespacedPod({ namespace: namespace.name, body: redisPod(name, { labels: { app: name } }) });
    }
    for (const name of ['left', 'right', 'bystander']) ips[name] = (await waitForPod(namespace.name, name)).status!.podIP!;
  });

  it('cuts an established replication link between two pods both ways, and the same link carries on once healed', async () => {
    await withRedis(ips.right, (right) => right.call('REPLICAOF', ips.left, '6379'));
    await waitFor(() => withRedis(ips.right, async (right) => infoField(await right.info('replication'), 'master_link_status') === 'up'), { description: 'right replicating from left' });
    await withRedis(ips.left, async (left) => {
      await left.set('before', '1');
      expect(await left.call('WAIT', '1', '1000')).toBe(1);
      const syncsBefore = await left.info('stats');

      const partition = await agent.partitionPods(namespace.name, 'left', 'right');
      try {
        expect(partition.addresses).toEqual([ips.left, ips.right]);
        // The replica's acknowledgements no longer arrive on the open connection, nor the primary's stream.
        await left.set('during', '1');
        expect(await left.call('WAIT', '1', '1000')).toBe(0);
        expect(await withRedis(ips.right, (right) => right.get('during'))).toBeNull();
        // New connections between them time out (dropped, not refused), in both directions ...
        expect(await connectFrom(ips.left, ips.right)).toBe('timed out');
        expect(await connectFrom(ips.right, ips.left)).toBe('timed out');
        // ... while everyone else still reaches both.
        expect(await connectFrom(ips.bystander, ips.left)).toBe('connected');
        expect(await connectFrom(ips.bystander, ips.right)).toBe('connected');
        expect(await connectFrom(undefined, ips.right)).toBe('connected');
      } finally {
        expect(await agent.heal(partition)).toBe(true);
      }

      expect(await dropRulesFor(ips.left)).toEqual([]);
      await waitFor(async () => (await left.call('WAIT', '1', '500')) === 1, { description: 'right acknowledging left again', timeoutMs: 30_000 });
      expect(await withRedis(ips.right, (right) => right.get('during'))).toBe('1');
      // Neither a full nor a partial resync: the replication connection from before the partition carried on.
      const syncsAfter = await left.info('stats');
      for (const field of ['sync_full', 'sync_partial_ok']) expect(infoField(syncsAfter, field)).toBe(infoField(syncsBefore, field));
    });
    await withRedis(ips.right, (right) => right.call('REPLICAOF', 'NO', 'ONE'));
  });

  it('heals a partition by itself when one of its pods goes away, so a pod that gets the address later is not cut off', async () => {
    await core.createNamespacedPod({ namespace: namespace.name, body: redisPod('short-lived') });
    const shortLivedIp = (await waitForPod(namespace.name, 'short-lived')).status!.podIP!;
    const partition = await agent.partitionPods(namespace.name, 'left', 'short-lived');
    expect(await dropRulesFor(shortLivedIp)).toHaveLength(2);
    await core.deleteNamespacedPod({ name: 'short-lived', namespace: namespace.name, gracePeriodSeconds: 0 });
    await waitFor(async () => !(await agent.partitions()).some((candidate) => candidate.id === partition.id), { description: 'partition healed with its pod' });
    expect(await dropRulesFor(shortLivedIp)).toEqual([]);
    expect(await agent.heal(partition)).toBe(false);
  });

  it('refuses a partition with an unknown pod or controller, naming it', async () => {
    await expect(agent.partitionPods(namespace.name, 'left', 'no-such-pod')).rejects.toThrow(/404.*no-such-pod/);
    await expect(agent.partition(podPeer(namespace.name, 'left'), { controller: 'nobody' })).rejects.toThrow(/404.*nobody/);
  });

  describe('a pod cut off from one controller', () => {
    let identity: ControllerIdentity;
    let pinger: PingerProcess | undefined;

    beforeAll(async () => {
      identity = await agent.registerController(`${namespace.name}-controller`);
    });
    afterAll(async () => {
      pinger?.stop();
      await agent.unregisterController(identity.name);
      expect((await agent.firewallRules()).filter((rule) => rule.includes(identity.sourceAddress))).toEqual([]);
    });

    it('gives the controller process its own source address, and cuts only that controller off from the pod', async () => {
      pinger = new PingerProcess(ips.left, controllerProcessOptions(identity));
      await waitFor(() => pinger!.progress().answered >= 3, { description: 'the stand-in controller pinging left' });
      const clients = await withRedis(ips.left, (left) => left.call('CLIENT', 'LIST') as Promise<string>);
      expect(clients).toContain(`addr=${identity.sourceAddress}:`);

      await core.createNamespacedService({
        namespace: namespace.name,
        body: { metadata: { name: 'left' }, spec: { selector: { app: 'left' }, ports: [{ port: 6379, targetPort: 'redis' }] } },
      });
      const clusterIp = await waitFor(async () => {
        const proxied = (await agent.services()).find((service) => service.namespace === namespace.name && service.name === 'left');
        return proxied?.endpoints.length === 1 ? proxied.clusterIp : undefined;
      }, { description: 'Service left proxied to pod left' });

      const partition = await agent.partitionFromController(namespace.name, 'left', identity);
      try {
        // PINGs on the controller's established connection go unanswered (5 of them: half a second at least).
        await waitFor(() => pinger!.progress().outstanding >= 5, { description: 'the controller connection cut' });
        expect(await connectFrom(identity.sourceAddress, ips.left)).toBe('timed out');
        expect(await connectFrom(identity.sourceAddress, ips.right)).toBe('connected');
        expect(await connectFrom(ips.bystander, ips.left)).toBe('connected');
        expect(await connectFrom(undefined, clusterIp)).toBe('connected');
        expect(await withRedis(clusterIp, (left) => left.ping())).toBe('PONG');
      } finally {
        await agent.heal(partition);
      }
      await waitFor(() => pinger!.progress().outstanding <= 1, { description: 'the same controller connection answered again', timeoutMs: 30_000 });
      expect(await dropRulesFor(identity.sourceAddress)).toEqual([]);
    });
  });
});
