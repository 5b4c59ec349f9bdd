import { E2E_TEST_TIMEOUT_MILLISECONDS, loadKubeConfig, nodeAgent, useTestNamespace, waitFor } from './support';
import { useOperator } from './controller-support/operator-process';
import { RedisClusterApi } from './controller-support/redis-cluster-api';

jest.setTimeout(3 * E2E_TEST_TIMEOUT_MILLISECONDS);

const config = loadKubeConfig();
const namespace = useTestNamespace('faults-controller');
const operator = useOperator(config, () => namespace.name, { asControllerIdentity: true });
const clusters = new RedisClusterApi(config, () => namespace.name, () => operator.process.tail());

describe('the real controller run as a harness controller identity', () => {
  const name = 'identified';

  it('works entirely through its apiserver proxy and reaches Redis from its own source address', async () => {
    const identity = operator.process.identity!;
    await clusters.create(name, { replicas: 2 });
    const ready = await clusters.waitReady(name, 'Ready under the controller identity');
    expect((await nodeAgent().controller(identity.name)).watches.openWatches).toBeGreaterThan(0);

    const primary = await clusters.connectToPod(name, ready.primary!);
    try {
      const controllerConnections = ((await primary.call('CLIENT', 'LIST')) as string).split('\n').filter((line) => line.includes('name=redkite-admin'));
      expect(controllerConnections.length).toBeGreaterThan(0);
      for (const line of controllerConnections) expect(line).toContain(`addr=${identity.sourceAddress}:`);
    } finally {
      primary.disconnect();
    }
  });

  it('hears of a spec change only once its stalled watches resume', async () => {
    const identity = operator.process.identity!;
    await nodeAgent().stallWatches(identity);
    let generation: number;
    try {
      generation = await clusters.patchSpec(name, { config: { 'maxmemory-policy': 'allkeys-lru' } });
      await waitFor(async () => (await nodeAgent().controller(identity.name)).watches.heldEvents > 0, { description: 'the RedisCluster change held at the proxy' });
    } finally {
      await nodeAgent().resumeWatches(identity);
    }
    await clusters.waitReady(name, 'Ready with the new generation after the resume', { generation });
  });
});
