import { computeStatus, type StatusInput } from '../../operator/rediscluster/cluster-status';
import type { TopologyPlan } from '../../operator/topology';
import { PHASES } from '../../src/api';
import { REDIS_CLUSTER_HEALTH_LUA } from '../../src/release/argocd-health-check';
import { INSTALL_TOOLS_TIMEOUT_MILLISECONDS, installTools, runTool } from './support/install-tools';

jest.setTimeout(INSTALL_TOOLS_TIMEOUT_MILLISECONDS);

interface Health {
  readonly status?: string;
  readonly message?: string;
  readonly error?: string;
}

const NOW = '2024-05-01T10:00:00.000Z';

function plan(overrides: Partial<TopologyPlan> = {}): TopologyPlan {
  return { actions: [], record: undefined, memory: {}, health: 'Healthy', reason: 'cache-0 serves with 2 linked replicas', primary: 'cache-0', readyReplicas: 2, requeueAfterMilliseconds: 500, ...overrides } as TopologyPlan;
}

/** What the controller computes for a three-pod cluster at generation 4; each test changes one thing. */
function input(overrides: Partial<StatusInput> = {}): StatusInput {
  return {
    clusterName: 'cache', generation: 4, desiredReplicas: 3, version: '7.2', previous: undefined, existingPods: 3,
    primaryServing: true, plan: plan(), rolloutComplete: true, now: NOW, ...overrides,
  };
}

const previouslyServing = computeStatus(input());

/** One input per phase the controller sets (operator/rediscluster/cluster-status.ts). */
const INPUT_PER_PHASE: Record<string, StatusInput> = {
  Provisioning: input({ primaryServing: false, existingPods: 1, plan: plan({ primary: null, readyReplicas: 0, health: 'Converging' as TopologyPlan['health'], reason: 'waiting for pods' }) }),
  Ready: input(),
  FailingOver: input({ previous: previouslyServing, primaryServing: false, plan: plan({ primary: 'cache-1', readyReplicas: 1, actions: [{ kind: 'promote', pod: 'cache-1' }], reason: 'cache-0 is down; promoting cache-1' }) }),
  Degraded: input({ previous: previouslyServing, plan: plan({ readyReplicas: 1, health: 'Degraded', reason: 'cache-2 does not replicate' }) }),
  Failed: input({ blockingProblem: { reason: 'PasswordSecretMissing', message: 'Secret cache-password not found' } }),
};

function redisCluster(status: unknown, metadata: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'redis.redkite.io/v1alpha1', kind: 'RedisCluster', metadata: { name: 'cache', namespace: 'apps', generation: 4, ...metadata }, spec: { replicas: 3 }, status };
}

/** Argo CD's verdicts for the objects, from the Lua interpreter Argo CD runs (test/install/go/argocd-lua). */
async function argoHealth(objects: readonly (Record<string, unknown> | null)[]): Promise<Health[]> {
  const { argocdLuaHealth } = await installTools();
  // JSON as the apiserver serves it (no undefined fields).
  const input = JSON.stringify({ script: REDIS_CLUSTER_HEALTH_LUA, objects: JSON.parse(JSON.stringify(objects)) });
  return JSON.parse(await runTool(argocdLuaHealth, [], { input })) as Health[];
}

describe('the Argo CD health check of a RedisCluster, run by gopher-lua as Argo CD runs it', () => {
  it('covers a status input for every phase the controller sets', () => {
    const phases = Object.entries(INPUT_PER_PHASE).map(([expected, statusInput]) => [expected, computeStatus(statusInput).phase]);
    expect(phases).toEqual(Object.keys(INPUT_PER_PHASE).map((phase) => [phase, phase]));
    // Pending and Deleting are declared in the API but never set: the check reports them Unknown (below).
    expect(PHASES.filter((phase) => !(phase in INPUT_PER_PHASE)).sort()).toEqual(['Deleting', 'Pending']);
  });

  it('is Healthy when Ready, Progressing while provisioning, Degraded while failing over, degraded or failed', async () => {
    const phases = Object.keys(INPUT_PER_PHASE);
    const verdicts = await argoHealth(phases.map((phase) => redisCluster(computeStatus(INPUT_PER_PHASE[phase]))));
    expect(Object.fromEntries(phases.map((phase, index) => [phase, verdicts[index]]))).toEqual({
      Provisioning: { status: 'Progressing', message: '0/3 pods serve: waiting for pods' },
      Ready: { status: 'Healthy', message: '3/3 pods serve; primary cache-0' },
      FailingOver: { status: 'Degraded', message: 'Failing over: cache-0 is down; promoting cache-1' },
      Degraded: { status: 'Degraded', message: 'cache-2 does not replicate' },
      Failed: { status: 'Degraded', message: 'Secret cache-password not found' },
    });
  });

  it('is Progressing until the controller has written a status for the current generation', async () => {
    const ready = computeStatus(INPUT_PER_PHASE.Ready);
    const [noStatus, olderGeneration, current] = await argoHealth([
      redisCluster(undefined),
      redisCluster(ready, { generation: 5 }),
      redisCluster(ready, { generation: 4 }),
    ]);
    expect(noStatus).toEqual({ status: 'Progressing', message: 'Waiting for the redkite controller to observe the RedisCluster' });
    expect(olderGeneration).toEqual({ status: 'Progressing', message: 'Waiting for the redkite controller to observe generation 5' });
    expect(current.status).toBe('Healthy');
  });

  it('reports a phase it does not know as Unknown, never Healthy', async () => {
    const [pending] = await argoHealth([redisCluster({ ...computeStatus(INPUT_PER_PHASE.Ready), phase: 'Rebalancing' })]);
    expect(pending).toEqual({ status: 'Unknown', message: 'Unknown phase Rebalancing' });
  });

  it('leaves Missing and deletion to Argo CD: an absent RedisCluster is Missing, one being deleted Progressing', async () => {
    const ready = computeStatus(INPUT_PER_PHASE.Ready);
    const [absent, deleting] = await argoHealth([null, redisCluster(ready, { deletionTimestamp: NOW })]);
    expect(absent).toEqual({ status: 'Missing' });
    expect(deleting).toEqual({ status: 'Progressing', message: 'Pending deletion' });
  });
});
