import { E2E_TEST_TIMEOUT_MILLISECONDS, chaos, loadKubeConfig, useTestNamespace, waitFor } from './support';
import { useOperator } from './controller-support/operator-process';
import { RedisClusterApi, redisClient } from './controller-support/redis-cluster-api';
import { AcknowledgedWriter, verifyAcknowledgedKeys } from '../support/acknowledged-writer';

jest.setTimeout(4 * E2E_TEST_TIMEOUT_MILLISECONDS);

const config = loadKubeConfig();
const namespace = useTestNamespace('rediscluster');
const operatorHandle = useOperator(config, () => namespace.name);
const clusters = new RedisClusterApi(config, () => namespace.name, () => operatorHandle.process.tail());
const name = 'cache';

/**
 * Runs `fault` against the primary while a writer sends `SET` + `WAIT 1 500` through the primary Service, waits for
 * a new primary to accept an acknowledged write, then checks that every acknowledged key is on the new primary.
 */
async function failoverWithoutLoss(keyPrefix: string, fault: (primary: string) => Promise<void>): Promise<{ from: string; to: string }> {
  const before = await clusters.waitReady(name, `cluster ${name} Ready before ${keyPrefix}`);
  const password = await clusters.password(name);
  const writerClient = await redisClient(await clusters.serviceAddress(name), password);
  const writer = AcknowledgedWriter.start({ client: writerClient, keyPrefix, replicas: 1, waitTimeoutMilliseconds: 500 });
  try {
    await waitFor(() => writer.acknowledged.length >= 50, { description: `50 acknowledged writes before ${keyPrefix}` });
    const faultAt = Date.now();
    await fault(before.primary!);
    const after = await waitFor(async () => {
      const status = await clusters.status(name);
      return status.primary && status.primary !== before.primary ? status : undefined;
    }, { description: `a new primary other than ${before.primary} (operator log:\n${operatorHandle.process.tail()})`, timeoutMs: 90_000, intervalMs: 200 });
    await waitFor(() => writer.firstAcknowledgedStartedAfter(faultAt), { description: 'an acknowledged write on the new primary', timeoutMs: 30_000 });
    await writer.stop();
    const reader = await clusters.connectToPod(name, after.primary!);
    try {
      const lost = await verifyAcknowledgedKeys(reader, writer.acknowledged);
      expect({ lost: lost.map((write) => write.key) }).toEqual({ lost: [] });
    } finally {
      reader.disconnect();
    }
    return { from: before.primary!, to: after.primary! };
  } finally {
    await writer.stop();
    writerClient.disconnect();
  }
}

describe('RedisCluster failover, with the controller under the release RBAC and real redis-server pods', () => {
  it('brings a three-pod cluster to Ready and routes writes through the primary Service to the primary', async () => {
    await clusters.create(name, { replicas: 3, minReplicasToWrite: 1 });
    const status = await clusters.waitReady(name, 'cluster cache Ready');
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
  });

  it('fails over after SIGKILL of the primary without losing an acknowledged write', async () => {
    const { to } = await failoverWithoutLoss('sigkill', async (primary) => {
      await chaos.kill(namespace.name, primary);
    });
    await clusters.waitReady(name, 'Ready after the SIGKILL failover');
    expect(await clusters.podsLabelledPrimary(name)).toEqual([to]);
  });

  it('fails over after the primary pod is deleted without losing an acknowledged write', async () => {
    await failoverWithoutLoss('delete-pod', async (primary) => {
      await chaos.deletePod(namespace.name, primary, 0);
    });
    await clusters.waitReady(name, 'Ready with three pods after the deleted pod returned');
  });

  it('fails over from a frozen primary and demotes it when it thaws, never labelling two primaries', async () => {
    const before = await clusters.waitReady(name, 'cluster cache Ready before the freeze');
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
  });

  it('converges when the controller is SIGKILLed in the middle of a failover', async () => {
    const before = await clusters.waitReady(name, 'cluster cache Ready before killing the controller');
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
  });

  it('deletes its children and finishes its finalizer when the cluster is deleted', async () => {
    await clusters.delete(name);
    await waitFor(async () => !(await clusters.exists(name)), { description: 'RedisCluster gone (finalizer removed)', timeoutMs: 60_000 });
    await waitFor(async () => (await clusters.pods(name)).length === 0, { description: 'pods garbage-collected', timeoutMs: 90_000 });
  });
});
