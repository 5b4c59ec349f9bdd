import { E2E_TEST_TIMEOUT_MILLISECONDS, chaos, loadKubeConfig, useTestNamespace, waitFor } from './support';
import { useOperator } from './controller-support/operator-process';
import { RedisClusterApi, redisClient, type ClusterStatus } from './controller-support/redis-cluster-api';
import { recordClusterHistory } from './controller-support/cluster-history';

jest.setTimeout(4 * E2E_TEST_TIMEOUT_MILLISECONDS);

const config = loadKubeConfig();
const namespace = useTestNamespace('rediscluster');
const operatorHandle = useOperator(config, () => namespace.name);
const clusters = new RedisClusterApi(config, () => namespace.name, () => operatorHandle.process.tail());

/** Creates a cluster this test owns and waits for it to be Ready. */
async function readyCluster(name: string): Promise<ClusterStatus> {
  await clusters.create(name, { replicas: 3, minReplicasToWrite: 1 });
  return clusters.waitReady(name, `${name} Ready`);
}

async function deleteCluster(name: string): Promise<void> {
  await clusters.delete(name);
  await waitFor(async () => !(await clusters.exists(name)), { description: `${name} deleted (finalizer removed)`, timeoutMs: 60_000 });
}

/**
 * Runs `fault` against the primary while writers send `SET` + `WAIT 1` through the primary Service, waits until
 * writes are acknowledged again and the cluster is Ready, then checks every acknowledged write and that no two
 * members were writable at once. A primary that comes back with its own data within the detection time keeps the
 * role (docs/failover.md, rule 4); otherwise a provably current replica takes over.
 */
async function survivesWithoutLoss(name: string, fault: (primary: string) => Promise<void>): Promise<{ before: ClusterStatus; after: ClusterStatus }> {
  const before = await readyCluster(name);
  const password = await clusters.password(name);
  const history = await recordClusterHistory(clusters, name, () => password);
  try {
    await history.moreAcknowledged(50, `50 acknowledged writes before the fault on ${name}`);
    await fault(before.primary!);
    await history.moreAcknowledged(20, `acknowledged writes after the fault on ${name}`);
    await history.verify(`${name}`);
    return { before, after: await clusters.status(name) };
  } finally {
    await Promise.all(history.writers.map((writer) => writer.stop()));
  }
}

describe('RedisCluster failover, with the controller under the release RBAC and real redis-server pods', () => {
  it('brings a three-pod cluster to Ready and routes writes through the primary Service to the primary', async () => {
    const name = 'routing';
    const status = await readyCluster(name);
    expect(status.readyReplicas).toBe(3);
    expect(await clusters.podsLabelledPrimary(name)).toEqual([status.primary]);

    const viaService = await redisClient(await clusters.serviceAddress(name), await clusters.password(name));
    try {
      await viaService.set('written-through-the-service', 'yes');
      expect(((await viaService.call('ROLE')) as unknown[])[0]).toBe('master');
    } finally {
      viaService.disconnect();
    }
    const direct = await clusters.connectToPod(name, status.primary!);
    try {
      expect(await direct.get('written-through-the-service')).toBe('yes');
    } finally {
      direct.disconnect();
    }
    await deleteCluster(name);
  });

  it('serves again after SIGKILL of the primary without losing an acknowledged write', async () => {
    const name = 'sigkill';
    const { after } = await survivesWithoutLoss(name, async (primary) => {
      await chaos.kill(namespace.name, primary);
    });
    expect(await clusters.podsLabelledPrimary(name)).toEqual([after.primary]);
    await deleteCluster(name);
  });

  it('serves again after the primary pod is deleted without losing an acknowledged write', async () => {
    const name = 'delete-pod';
    await survivesWithoutLoss(name, async (primary) => {
      await chaos.deletePod(namespace.name, primary, 0);
    });
    await clusters.waitReady(name, 'Ready with three pods after the deleted pod returned');
    await deleteCluster(name);
  });

  it('fails over from a frozen primary and demotes it when it thaws, never labelling two primaries', async () => {
    const name = 'frozen';
    const before = await readyCluster(name);
    let sampling = true;
    let maxPrimaries = 0;
    const sampler = (async () => {
      while (sampling) {
        maxPrimaries = Math.max(maxPrimaries, (await clusters.podsLabelledPrimary(name)).length);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    try {
      await chaos.freeze(namespace.name, before.primary!);
      const after = await waitFor(async () => {
        const status = await clusters.status(name);
        return status.primary && status.primary !== before.primary ? status : undefined;
      }, { description: `failover away from frozen ${before.primary} (operator log:\n${operatorHandle.process.tail()})`, timeoutMs: 60_000, intervalMs: 200 });
      await chaos.thaw(namespace.name, before.primary!);
      const oldPrimary = await clusters.connectToPod(name, before.primary!);
      try {
        await waitFor(async () => ((await oldPrimary.call('ROLE')) as unknown[])[0] === 'slave', {
          description: `${before.primary} demoted to a replica after thawing`,
          timeoutMs: 30_000,
        });
        // min-replicas-to-write 1: even before its demotion the old primary, alone, could not acknowledge writes.
      } finally {
        oldPrimary.disconnect();
      }
      await clusters.waitReady(name, 'cluster Ready again after the thaw');
      expect((await clusters.status(name)).primary).toBe(after.primary);
    } finally {
      sampling = false;
      await sampler;
      await chaos.thaw(namespace.name, before.primary!).catch(() => undefined);
    }
    expect(maxPrimaries).toBeLessThanOrEqual(1);
    await deleteCluster(name);
  });

  it('converges when the controller is SIGKILLed in the middle of a failover', async () => {
    const name = 'controller-kill';
    const before = await readyCluster(name);
    await chaos.freeze(namespace.name, before.primary!);
    try {
      // Kill the controller while it is detecting / carrying out the failover, then start a fresh one.
      await waitFor(async () => (await clusters.status(name)).conditions?.some((c) => c.type === 'Ready' && c.status === 'False'), {
        description: 'the controller noticed the frozen primary',
        timeoutMs: 30_000,
        intervalMs: 100,
      });
      operatorHandle.process.kill();
      operatorHandle.process.start();
      const after = await waitFor(async () => {
        const status = await clusters.status(name);
        return status.primary && status.primary !== before.primary ? status : undefined;
      }, { description: `the restarted controller finished the failover (operator log:\n${operatorHandle.process.tail()})`, timeoutMs: 60_000, intervalMs: 200 });
      expect(await clusters.podsLabelledPrimary(name)).toEqual([after.primary]);
    } finally {
      await chaos.thaw(namespace.name, before.primary!);
    }
    await clusters.waitReady(name, 'Ready after the restarted controller converged');
    expect(await clusters.podsLabelledPrimary(name)).toHaveLength(1);
    await deleteCluster(name);
  });

  it('deletes its children and finishes its finalizer when the cluster is deleted', async () => {
    const name = 'finalizer';
    await readyCluster(name);
    await clusters.delete(name);
    await waitFor(async () => !(await clusters.exists(name)), { description: 'RedisCluster gone (finalizer removed)', timeoutMs: 60_000 });
    await waitFor(async () => (await clusters.pods(name)).length === 0, { description: 'pods garbage-collected', timeoutMs: 90_000 });
  });
});
