import { E2E_TEST_TIMEOUT_MILLISECONDS, chaos, k8s, loadKubeConfig, useTestNamespace, waitFor } from './support';
import { OperatorProcess, operatorKubeconfig } from './controller-support/operator-process';
import { installCrd, installOperatorRelease } from './controller-support/release';
import { RedisClusterApi } from './controller-support/redis-cluster-api';
import { deleteCluster, recordOf, waitForNewEpoch } from './controller-support/owned-cluster';
import { recordClusterHistory } from './controller-support/cluster-history';

jest.setTimeout(6 * E2E_TEST_TIMEOUT_MILLISECONDS);

const config = loadKubeConfig();
const namespace = useTestNamespace('leader-stall');
const controllers: OperatorProcess[] = [];
const clusters = new RedisClusterApi(config, () => namespace.name, () => controllers.map((controller, index) => `controller ${index}:\n${controller.tail(25)}`).join('\n'));

async function startController(): Promise<OperatorProcess> {
  const controller = new OperatorProcess(await operatorKubeconfig(config), namespace.name, ['--leader-elect']);
  controllers.push(controller);
  controller.start();
  return controller;
}

/** Events the controllers recorded for the cluster with this reason. */
async function eventsWithReason(reason: string): Promise<number> {
  const events = await config.makeApiClient(k8s.EventsV1Api).listNamespacedEvent({ namespace: namespace.name });
  return events.items.filter((event) => event.reason === reason).length;
}

beforeAll(async () => {
  await installCrd(config);
  await installOperatorRelease(config);
});

afterAll(async () => {
  for (const controller of controllers) controller.thaw();
  await Promise.all(controllers.map((controller) => controller.stop()));
});

describe('two leader-elected controllers (I6: a controller that lost its lease writes nothing)', () => {
  it('lets the standby fail over once while the leader is stalled mid-failover, and the thawed old leader writes nothing', async () => {
    const name = 'stalled-leader';
    const leader = await startController();
    await clusters.create(name, { replicas: 3 });
    const ready = await clusters.waitReady(name, `${name} Ready under the first controller`);
    const before = recordOf(ready)!;
    const standby = await startController();
    const password = await clusters.password(name);
    const history = await recordClusterHistory(clusters, name, () => password);
    try {
      await history.moreAcknowledged(100, 'writes before the fault');
      await chaos.freeze(namespace.name, ready.primary!);
      // The leader sees the primary down and its detection timer runs: stall it before it can act.
      await waitFor(async () => (await eventsWithReason('PrimaryUnreachable')) > 0, { description: 'the leader noticing the frozen primary', timeoutMs: 30_000, intervalMs: 100 });
      leader.freeze();
      const failedOver = await waitForNewEpoch(clusters, name, before.epoch, 'the standby taking the lease and failing over');
      await chaos.thaw(namespace.name, ready.primary!);
      leader.thaw();
      // The old leader finds its lease expired on resuming and exits without acting.
      await waitFor(() => leader.exitCode !== null, { description: 'the thawed old leader exiting', timeoutMs: 60_000 });
      await history.moreAcknowledged(50, 'writes after the thaw');
      await history.verify('leader stalled mid-failover');
      const after = recordOf(await clusters.status(name))!;
      expect(after).toEqual(expect.objectContaining({ primary: failedOver.primary, epoch: failedOver.epoch }));
      expect(await eventsWithReason('PrimaryFailedOver')).toBe(1);
      expect(standby.exitCode).toBeNull();
    } finally {
      await Promise.all(history.writers.map((writer) => writer.stop()));
      await deleteCluster(clusters, name);
    }
  });
});
