import { E2E_TEST_TIMEOUT_MILLISECONDS, chaos, k8s, loadKubeConfig, useTestNamespace, waitFor } from './support';
import { useOperator } from './controller-support/operator-process';
import { RedisClusterApi, condition } from './controller-support/redis-cluster-api';
import { recordClusterHistory } from './controller-support/cluster-history';

jest.setTimeout(5 * E2E_TEST_TIMEOUT_MILLISECONDS);

const config = loadKubeConfig();
const namespace = useTestNamespace('lifecycle');
const operatorHandle = useOperator(config, () => namespace.name);
const clusters = new RedisClusterApi(config, () => namespace.name, () => operatorHandle.process.tail());
const core = config.makeApiClient(k8s.CoreV1Api);
const events = config.makeApiClient(k8s.EventsV1Api);

async function eventReasons(regarding: string): Promise<string[]> {
  const list = await events.listNamespacedEvent({ namespace: namespace.name });
  return list.items.filter((event) => event.regarding?.name === regarding).map((event) => event.reason ?? '');
}

/** Creates a cluster the calling test owns and waits until it is Ready. */
async function readyCluster(name: string, replicas: number): Promise<void> {
  await clusters.create(name, { replicas, minReplicasToWrite: 1 });
  await clusters.waitReady(name, `${name} Ready with ${replicas} pods`);
}

async function deleteCluster(name: string): Promise<void> {
  await clusters.delete(name);
  await waitFor(async () => !(await clusters.exists(name)), { description: `RedisCluster ${name} gone (operator log:\n${operatorHandle.process.tail()})`, timeoutMs: 60_000 });
}

describe('planned changes to a RedisCluster', () => {
  it('scales 3 → 5 → 2, switching over first when the primary is among the pods to remove, keeping the data', async () => {
    const name = 'planned';
    await clusters.create(name, { replicas: 3, minReplicasToWrite: 1 });
    const initial = await clusters.waitReady(name, 'three pods Ready');
    const primary = await clusters.connectToPod(name, initial.primary!);
    try {
      await primary.set('before-scaling', 'kept');
      expect(await primary.call('WAIT', 2, 2000)).toBe(2);
    } finally {
      primary.disconnect();
    }

    const up = await clusters.patchSpec(name, { replicas: 5 });
    expect((await clusters.waitReady(name, 'five pods Ready', { generation: up })).readyReplicas).toBe(5);

    // Make the highest ordinal the primary with Redis' own FAILOVER, as someone switching over by hand would: the
    // controller records the primary its recorded one now follows (docs/failover.md, rule 4).
    const fiveReady = await clusters.status(name);
    if (fiveReady.primary !== 'planned-4') {
      const current = await clusters.connectToPod(name, fiveReady.primary!);
      try {
        await current.call('FAILOVER', 'TO', await clusters.podIp('planned-4'), '6379', 'TIMEOUT', '5000');
      } finally {
        current.disconnect();
      }
      await waitFor(async () => (await clusters.status(name)).primary === 'planned-4', {
        description: `planned-4 recorded as primary after FAILOVER TO (operator log:\n${operatorHandle.process.tail()})`,
        timeoutMs: 60_000,
      });
      await clusters.waitReady(name, 'five pods Ready around primary planned-4');
    }

    // Scaling to 2 removes planned-4: the controller must switch over before the StatefulSet shrinks.
    const down = await clusters.patchSpec(name, { replicas: 2 });
    const afterDown = await clusters.waitReady(name, 'two pods Ready', { generation: down });
    expect(afterDown.readyReplicas).toBe(2);
    await waitFor(async () => (await clusters.pods(name)).length === 2, { description: 'pods 2, 3 and 4 removed', timeoutMs: 60_000 });
    expect(['planned-0', 'planned-1']).toContain(afterDown.primary);
    expect(await eventReasons(name)).toContain('SwitchoverCompleted');
    const reader = await clusters.connectToPod(name, afterDown.primary!);
    try {
      expect(await reader.get('before-scaling')).toBe('kept');
    } finally {
      reader.disconnect();
    }
    await deleteCluster(name);
  });

  it('applies a live config parameter with CONFIG SET on every pod without restarting any', async () => {
    const name = 'live-config';
    await readyCluster(name, 2);
    const podsBefore = await clusters.pods(name);
    const generation = await clusters.patchSpec(name, { config: { 'maxmemory-policy': 'allkeys-lru' } });
    await clusters.waitReady(name, 'Ready with the new config', { generation });
    for (const pod of podsBefore) {
      const redis = await clusters.connectToPod(name, pod.metadata!.name!);
      try {
        await waitFor(async () => ((await redis.config('GET', 'maxmemory-policy')) as string[])[1] === 'allkeys-lru', {
          description: `maxmemory-policy on ${pod.metadata!.name}`,
          timeoutMs: 30_000,
        });
      } finally {
        redis.disconnect();
      }
    }
    const podsAfter = await clusters.pods(name);
    expect(podsAfter.map((pod) => pod.metadata!.uid).sort()).toEqual(podsBefore.map((pod) => pod.metadata!.uid).sort());
    await deleteCluster(name);
  });

  it('upgrades the version replicas first, then switches over, without losing an acknowledged write', async () => {
    const name = 'upgrade';
    await readyCluster(name, 2);
    const before = await clusters.waitReady(name, 'Ready before the upgrade');
    const password = await clusters.password(name);
    const history = await recordClusterHistory(clusters, name, () => password);
    try {
      await history.moreAcknowledged(20, '20 acknowledged writes before the upgrade');
      const generation = await clusters.patchSpec(name, { version: '7.4' });
      const after = await waitFor(async () => {
        const status = await clusters.status(name);
        const pods = await clusters.pods(name);
        const upgraded = pods.length === 2 && pods.every((pod) => pod.spec!.containers[0].image === 'redis:7.4');
        return upgraded && status.currentVersion === '7.4' && (status.observedGeneration ?? 0) >= generation && condition(status, 'Ready')?.status === 'True' ? status : undefined;
      }, { description: `every pod on redis:7.4 and Ready (operator log:\n${operatorHandle.process.tail()})`, timeoutMs: 180_000, intervalMs: 500 });
      expect(after.primary).not.toBe(before.primary);
      await history.moreAcknowledged(10, 'writes after the upgrade');
      await history.verify('rolling upgrade with a switchover');
      const reasons = await eventReasons(name);
      expect(reasons).toEqual(expect.arrayContaining(['RestartingPod', 'SwitchoverCompleted']));
    } finally {
      await Promise.all(history.writers.map((writer) => writer.stop()));
    }
    await deleteCluster(name);
  });

  it('rolls pods one at a time for a parameter that needs a restart', async () => {
    const name = 'restart-parameter';
    await readyCluster(name, 2);
    const podsBefore = await clusters.pods(name);
    const generation = await clusters.patchSpec(name, { config: { 'maxmemory-policy': 'allkeys-lru', databases: '32' } });
    await waitFor(async () => {
      const pods = await clusters.pods(name);
      const replaced = pods.filter((pod) => !podsBefore.some((old) => old.metadata!.uid === pod.metadata!.uid));
      const status = await clusters.status(name);
      return replaced.length === 2 && (status.observedGeneration ?? 0) >= generation && condition(status, 'Ready')?.status === 'True';
    }, { description: `both pods recreated for databases=32 (operator log:\n${operatorHandle.process.tail()})`, timeoutMs: 180_000, intervalMs: 500 });
    const status = await clusters.status(name);
    const redis = await clusters.connectToPod(name, status.primary!);
    try {
      expect(await redis.config('GET', 'databases')).toEqual(['databases', '32']);
    } finally {
      redis.disconnect();
    }
    await deleteCluster(name);
  });
});

describe('deletion', () => {
  it('removes pods and, with reclaimPolicy Delete, the PersistentVolumeClaims, then finishes its finalizer', async () => {
    const name = 'deletion';
    await readyCluster(name, 2);
    expect((await core.listNamespacedPersistentVolumeClaim({ namespace: namespace.name, labelSelector: `app.kubernetes.io/instance=${name}` })).items.length).toBeGreaterThan(0);
    await clusters.patchSpec(name, { storage: { reclaimPolicy: 'Delete' } });
    await clusters.delete(name);
    await waitFor(async () => !(await clusters.exists(name)), { description: `RedisCluster ${name} gone (operator log:\n${operatorHandle.process.tail()})`, timeoutMs: 60_000 });
    await waitFor(async () => (await clusters.pods(name)).length === 0, { description: 'pods garbage-collected', timeoutMs: 90_000 });
    await waitFor(
      async () => (await core.listNamespacedPersistentVolumeClaim({ namespace: namespace.name, labelSelector: `app.kubernetes.io/instance=${name}` })).items.length === 0,
      { description: 'PersistentVolumeClaims deleted', timeoutMs: 60_000 },
    );
  });
});

describe('specs the controller cannot act on', () => {
  it('reports a missing password Secret in conditions and Events, and recovers once it exists', async () => {
    await clusters.create('no-secret', { replicas: 1, auth: { passwordSecretName: 'does-not-exist' } });
    const status = await waitFor(async () => {
      const current = await clusters.status('no-secret');
      return condition(current, 'Ready')?.reason === 'PasswordUnavailable' ? current : undefined;
    }, { description: 'Ready=False with reason PasswordUnavailable', timeoutMs: 60_000 });
    expect(condition(status, 'Ready')?.message).toContain('does-not-exist');
    expect(condition(status, 'Degraded')?.status).toBe('True');
    await waitFor(async () => (await eventReasons('no-secret')).includes('PasswordUnavailable'), { description: 'a PasswordUnavailable Event' });

    await core.createNamespacedSecret({ namespace: namespace.name, body: { metadata: { name: 'does-not-exist' }, stringData: { password: 'now-it-does' } } });
    await clusters.waitReady('no-secret', 'Ready once the Secret exists');
  });

  it('reports an image that never starts in conditions, and keeps reconciling other clusters', async () => {
    await clusters.create('bad-image', { replicas: 1, image: 'example.com/not-redis:1.0' });
    const status = await waitFor(async () => {
      const current = await clusters.status('bad-image');
      return condition(current, 'Ready')?.reason === 'PodCannotStart' ? current : undefined;
    }, { description: `Ready=False with reason PodCannotStart (operator log:\n${operatorHandle.process.tail()})`, timeoutMs: 60_000 });
    expect(condition(status, 'Ready')?.message).toMatch(/bad-image-0.*ImageNotRunnable/);
    expect(status.phase).toBe('Failed');
    // The controller is still alive and serving other clusters.
    const generation = await clusters.patchSpec('no-secret', { config: { timeout: '300' } });
    await clusters.waitReady('no-secret', 'another cluster still reconciled', { generation });
  });

  it('keeps reconciling a healthy cluster while another cluster\'s primary is unreachable', async () => {
    await clusters.create('stuck', { replicas: 1, automaticFailover: false });
    const stuck = await clusters.waitReady('stuck', 'cluster stuck Ready');
    await chaos.freeze(namespace.name, stuck.primary!);
    try {
      await waitFor(async () => condition(await clusters.status('stuck'), 'Available')?.status === 'False', {
        description: 'stuck reported without a serving primary',
        timeoutMs: 30_000,
      });
      const started = Date.now();
      const generation = await clusters.patchSpec('no-secret', { config: { timeout: '600' } });
      await clusters.waitReady('no-secret', 'the healthy cluster reconciled while stuck is frozen', { generation, timeoutMs: 30_000 });
      process.stderr.write(`[lifecycle] reconcile of a healthy cluster while another is frozen: ${Date.now() - started} ms\n`);
    } finally {
      await chaos.thaw(namespace.name, stuck.primary!);
    }
  });
});
