import { computeStatus, decideConditions, statusUnchanged, type ConditionDecision, type StatusInput } from '../../../operator/rediscluster/cluster-status';
import type { TopologyPlan } from '../../../operator/topology';
import type { Condition, RedisClusterConditionType, RedisClusterStatus } from '../../../src/api';
import { podSelectorString } from '../../../src/naming';

const EARLIER = '2024-05-01T09:00:00.000Z';
const NOW = '2024-05-01T10:00:00.000Z';

/** A healthy plan for a three-pod cluster: cache-0 primary, two linked replicas, nothing to do. */
function plan(overrides: Partial<TopologyPlan> = {}): TopologyPlan {
  return {
    actions: [],
    memory: {},
    health: 'Healthy',
    reason: 'cache-0 serves with 2 linked replicas',
    primary: 'cache-0',
    readyReplicas: 2,
    requeueAfterMilliseconds: 500,
    ...overrides,
    record: overrides.record,
  };
}

/** A healthy three-pod cluster at generation 4 on Redis 7.2, computed at {@link NOW}. */
function statusInput(overrides: Partial<StatusInput> = {}): StatusInput {
  return {
    clusterName: 'cache',
    generation: 4,
    desiredReplicas: 3,
    version: '7.2',
    previous: undefined,
    existingPods: 3,
    primaryServing: true,
    plan: plan(),
    rolloutComplete: true,
    now: NOW,
    ...overrides,
  };
}

function condition(decisions: readonly ConditionDecision[], type: RedisClusterConditionType): ConditionDecision {
  const found = decisions.find((decision) => decision.type === type);
  if (!found) throw new Error(`no ${type} condition`);
  return found;
}

function conditionOf(status: RedisClusterStatus, type: RedisClusterConditionType): Condition {
  const found = status.conditions?.find((entry) => entry.type === type);
  if (!found) throw new Error(`no ${type} condition`);
  return found;
}

const ready = (input: StatusInput) => condition(decideConditions(input), 'Ready');
const available = (input: StatusInput) => condition(decideConditions(input), 'Available');
const progressing = (input: StatusInput) => condition(decideConditions(input), 'Progressing');
const degraded = (input: StatusInput) => condition(decideConditions(input), 'Degraded');

const blockingProblem = { reason: 'PasswordSecretMissing', message: 'Secret team-redis-password not found' };
const progress = { reason: 'RollingUpdate', message: 'rolling replica cache-2 to revision cache-7d9f' };

describe('decideConditions', () => {
  it('decides Ready, Available, Progressing and Degraded, in that order', () => {
    expect(decideConditions(statusInput()).map((decision) => decision.type)).toEqual(['Ready', 'Available', 'Progressing', 'Degraded']);
  });

  describe('Ready', () => {
    it('is True when the primary serves, every replica is linked, the rollout is complete and nothing progresses', () => {
      expect(ready(statusInput())).toMatchObject({ status: 'True', reason: 'AllReplicasReady', message: expect.stringContaining('3/3') });
    });

    it('names the primary when True', () => {
      expect(ready(statusInput()).message).toContain('cache-0');
    });

    it.each<[string, Partial<StatusInput>]>([
      ['every other condition holds', {}],
      ['the plan counts every pod as a linked replica', { plan: plan({ readyReplicas: 3 }) }],
      ['more replicas are linked than desired', { plan: plan({ readyReplicas: 5 }) }],
    ])('is never True while the primary does not serve, even when %s', (_description, overrides) => {
      expect(ready(statusInput({ ...overrides, primaryServing: false })).status).toBe('False');
    });

    it('says PrimaryNotServing while the primary does not serve', () => {
      expect(ready(statusInput({ primaryServing: false }))).toMatchObject({ status: 'False', reason: 'PrimaryNotServing' });
    });

    it('is False with ReplicasNotReady while a replica is not linked', () => {
      expect(ready(statusInput({ plan: plan({ readyReplicas: 1 }) }))).toMatchObject({ status: 'False', reason: 'ReplicasNotReady', message: expect.stringContaining('2/3') });
    });

    it("carries the plan's reason in its message while False", () => {
      expect(ready(statusInput({ plan: plan({ readyReplicas: 1, reason: 'cache-2 follows 10.0.0.99' }) })).message).toContain('cache-2 follows 10.0.0.99');
    });

    it('is False while pods are missing from a scale-up', () => {
      expect(ready(statusInput({ desiredReplicas: 5 })).status).toBe('False');
    });

    it('is False while the rollout is not complete', () => {
      expect(ready(statusInput({ rolloutComplete: false })).status).toBe('False');
    });

    it('is False while a change is in progress', () => {
      expect(ready(statusInput({ progress })).status).toBe('False');
    });

    it('explains itself with the reason and message of a blocking problem while False', () => {
      expect(ready(statusInput({ primaryServing: false, blockingProblem }))).toEqual({ type: 'Ready', status: 'False', ...blockingProblem });
    });

    it('is False without a plan', () => {
      expect(ready(statusInput({ plan: undefined, primaryServing: false }))).toMatchObject({ status: 'False', reason: 'PrimaryNotServing' });
    });
  });

  describe('Available', () => {
    it('is True while the primary serves', () => {
      expect(available(statusInput())).toMatchObject({ status: 'True', reason: 'PrimaryServing', message: expect.stringContaining('cache-0') });
    });

    it('is True while the primary serves even though replicas are missing', () => {
      expect(available(statusInput({ plan: plan({ readyReplicas: 0 }) })).status).toBe('True');
    });

    it('is False while the primary does not serve', () => {
      expect(available(statusInput({ primaryServing: false }))).toMatchObject({ status: 'False', reason: 'NoServingPrimary' });
    });

    it('explains a blocking problem while False', () => {
      expect(available(statusInput({ primaryServing: false, blockingProblem })).message).toBe(blockingProblem.message);
    });
  });

  describe('Progressing', () => {
    it('is True with the reason and message of the change in progress', () => {
      expect(progressing(statusInput({ progress }))).toEqual({ type: 'Progressing', status: 'True', ...progress });
    });

    it('is True while the planner has actions to carry out', () => {
      const converging = plan({ health: 'Converging', reason: 'pointing cache-2 at cache-0', actions: [{ kind: 'labelPrimary', pod: 'cache-0' }] });
      expect(progressing(statusInput({ plan: converging }))).toEqual({ type: 'Progressing', status: 'True', reason: 'TopologyConverging', message: 'pointing cache-2 at cache-0' });
    });

    it('is False when nothing is in progress and nothing is planned', () => {
      expect(progressing(statusInput())).toMatchObject({ status: 'False', reason: 'Stable' });
    });
  });

  describe('Degraded', () => {
    it('is True with the reason and message of a blocking problem', () => {
      expect(degraded(statusInput({ blockingProblem }))).toEqual({ type: 'Degraded', status: 'True', ...blockingProblem });
    });

    it('is True when the planner reports the topology Degraded', () => {
      expect(degraded(statusInput({ plan: plan({ health: 'Degraded', reason: 'no replica may be promoted' }) }))).toEqual({
        type: 'Degraded',
        status: 'True',
        reason: 'TopologyDegraded',
        message: 'no replica may be promoted',
      });
    });

    it('is True when the planner suspects the primary', () => {
      expect(degraded(statusInput({ primaryServing: false, plan: plan({ health: 'PrimarySuspect' }) }))).toMatchObject({ status: 'True', reason: 'PrimarySuspect' });
    });

    it('prefers a blocking problem over the planner health', () => {
      expect(degraded(statusInput({ blockingProblem, plan: plan({ health: 'Degraded' }) })).reason).toBe(blockingProblem.reason);
    });

    it('is False while the topology converges', () => {
      expect(degraded(statusInput({ plan: plan({ health: 'Converging' }) }))).toMatchObject({ status: 'False', reason: 'Healthy' });
    });

    it('is False for a healthy cluster', () => {
      expect(degraded(statusInput()).status).toBe('False');
    });
  });
});

describe('computeStatus', () => {
  it('reports ready as ready pods over desired pods', () => {
    expect(computeStatus(statusInput({ plan: plan({ readyReplicas: 1 }) })).ready).toBe('2/3');
  });

  it('counts the serving primary and its linked replicas as ready', () => {
    expect(computeStatus(statusInput()).readyReplicas).toBe(3);
  });

  it('does not count a primary that does not serve as ready', () => {
    expect(computeStatus(statusInput({ primaryServing: false })).ready).toBe('2/3');
  });

  it('names the primary while it serves', () => {
    expect(computeStatus(statusInput()).primary).toBe('cache-0');
  });

  it('omits the primary while it does not serve', () => {
    expect(computeStatus(statusInput({ primaryServing: false }))).not.toHaveProperty('primary', expect.anything());
  });

  it('reports the pods that exist as replicas', () => {
    expect(computeStatus(statusInput({ existingPods: 2 })).replicas).toBe(2);
  });

  it("reports the cluster's pod selector", () => {
    expect(computeStatus(statusInput()).selector).toBe(podSelectorString('cache'));
  });

  it('records the observed generation on the status and on every condition', () => {
    const status = computeStatus(statusInput({ generation: 7 }));
    expect([status.observedGeneration, ...(status.conditions ?? []).map((entry) => entry.observedGeneration)]).toEqual([7, 7, 7, 7, 7]);
  });

  it('reports the spec version as current once the rollout is complete', () => {
    expect(computeStatus(statusInput({ version: '7.4', previous: { currentVersion: '7.2' } })).currentVersion).toBe('7.4');
  });

  it('keeps the previous current version while the rollout is not complete', () => {
    expect(computeStatus(statusInput({ version: '7.4', rolloutComplete: false, previous: { currentVersion: '7.2' } })).currentVersion).toBe('7.2');
  });

  it('records the time of a failover', () => {
    expect(computeStatus(statusInput({ failedOverAt: NOW, previous: { lastFailoverTime: EARLIER } })).lastFailoverTime).toBe(NOW);
  });

  it('keeps the time of the last failover when none happened now', () => {
    expect(computeStatus(statusInput({ previous: { lastFailoverTime: EARLIER } })).lastFailoverTime).toBe(EARLIER);
  });

  describe('lastTransitionTime', () => {
    const previousConditions = (status: 'True' | 'False'): Condition[] =>
      (['Ready', 'Available', 'Progressing', 'Degraded'] as const).map((type) => ({ type, status, reason: 'Before', message: 'before', lastTransitionTime: EARLIER }));

    it('is now for a condition that did not exist before', () => {
      expect(conditionOf(computeStatus(statusInput()), 'Ready').lastTransitionTime).toBe(NOW);
    });

    it('is kept when the status of a condition did not change', () => {
      const previous: RedisClusterStatus = { conditions: previousConditions('True') };
      expect(conditionOf(computeStatus(statusInput({ previous })), 'Ready').lastTransitionTime).toBe(EARLIER);
    });

    it('is kept when only the reason and message of a condition changed', () => {
      const previous: RedisClusterStatus = { conditions: previousConditions('True') };
      expect(conditionOf(computeStatus(statusInput({ previous })), 'Ready')).toMatchObject({ reason: 'AllReplicasReady', lastTransitionTime: EARLIER });
    });

    it('is now when the status of a condition changed', () => {
      const previous: RedisClusterStatus = { conditions: previousConditions('False') };
      expect(conditionOf(computeStatus(statusInput({ previous })), 'Ready').lastTransitionTime).toBe(NOW);
    });

    it('is decided per condition', () => {
      const previous: RedisClusterStatus = { conditions: previousConditions('False') };
      const status = computeStatus(statusInput({ previous }));
      expect(Object.fromEntries((status.conditions ?? []).map((entry) => [entry.type, entry.lastTransitionTime]))).toEqual({
        Ready: NOW,
        Available: NOW,
        Progressing: EARLIER,
        Degraded: EARLIER,
      });
    });
  });

  describe('phase', () => {
    it('is Ready when the Ready condition is True', () => {
      expect(computeStatus(statusInput()).phase).toBe('Ready');
    });

    it('is Failed on a blocking problem', () => {
      expect(computeStatus(statusInput({ blockingProblem })).phase).toBe('Failed');
    });

    it('is FailingOver while the planner promotes a replica', () => {
      const promoting = plan({ health: 'Converging', primary: 'cache-1', actions: [{ kind: 'promote', pod: 'cache-1' }] });
      expect(computeStatus(statusInput({ primaryServing: false, plan: promoting, previous: { primary: 'cache-0' } })).phase).toBe('FailingOver');
    });

    it('is Provisioning before any primary has served', () => {
      expect(computeStatus(statusInput({ primaryServing: false, plan: plan({ health: 'Degraded', readyReplicas: 0 }) })).phase).toBe('Provisioning');
    });

    it('is Degraded when a primary that served is suspect', () => {
      expect(computeStatus(statusInput({ primaryServing: false, plan: plan({ health: 'PrimarySuspect' }), previous: { primary: 'cache-0' } })).phase).toBe('Degraded');
    });

    it('is Provisioning while replicas catch up under a serving primary', () => {
      expect(computeStatus(statusInput({ plan: plan({ health: 'Converging', readyReplicas: 1 }) })).phase).toBe('Provisioning');
    });
  });
});

describe('statusUnchanged', () => {
  it('treats a status recomputed from the same observations as unchanged', () => {
    const first = computeStatus(statusInput());
    expect(statusUnchanged(first, computeStatus(statusInput({ previous: first, now: '2024-05-01T10:05:00.000Z' })))).toBe(true);
  });

  it('treats identical content as unchanged', () => {
    const status = computeStatus(statusInput());
    expect(statusUnchanged(status, structuredClone(status))).toBe(true);
  });

  it('ignores the order of top-level keys', () => {
    const status = computeStatus(statusInput());
    const reversed = Object.fromEntries(Object.entries(status).reverse()) as RedisClusterStatus;
    expect(statusUnchanged(reversed, status)).toBe(true);
  });

  it('ignores the order of conditions', () => {
    const status = computeStatus(statusInput());
    expect(statusUnchanged({ ...status, conditions: [...(status.conditions ?? [])].reverse() }, status)).toBe(true);
  });

  it('ignores fields that are undefined', () => {
    const status = computeStatus(statusInput({ primaryServing: false }));
    const withoutUndefined = Object.fromEntries(Object.entries(status).filter(([, value]) => value !== undefined)) as RedisClusterStatus;
    expect(statusUnchanged({ ...status, primary: undefined }, withoutUndefined)).toBe(true);
  });

  it('detects a changed condition message', () => {
    const status = computeStatus(statusInput());
    const conditions = (status.conditions ?? []).map((entry) => (entry.type === 'Ready' ? { ...entry, message: 'something else' } : entry));
    expect(statusUnchanged(status, { ...status, conditions })).toBe(false);
  });

  it('detects a changed top-level field', () => {
    const status = computeStatus(statusInput());
    expect(statusUnchanged(status, { ...status, ready: '2/3' })).toBe(false);
  });

  it('detects a new condition', () => {
    const status = computeStatus(statusInput());
    expect(statusUnchanged({ ...status, conditions: (status.conditions ?? []).slice(1) }, status)).toBe(false);
  });

  it('treats any status as a change when there was none', () => {
    expect(statusUnchanged(undefined, computeStatus(statusInput()))).toBe(false);
  });
});
