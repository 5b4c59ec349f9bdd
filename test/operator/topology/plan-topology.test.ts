import { planTopology, type TopologyAction, type TopologyInput } from '../../../operator/topology';
import {
  events,
  gone,
  input,
  orphanedReplica,
  primary,
  replica,
  steps,
  unreachable,
} from './cluster-builders';

const unlabel = (ordinal: number) => ({ kind: 'unlabelPrimary', pod: `cache-${ordinal}` });
const promote = (ordinal: number) => ({ kind: 'promote', pod: `cache-${ordinal}` });
const label = (ordinal: number) => ({ kind: 'labelPrimary', pod: `cache-${ordinal}` });
const follow = (ordinal: number, of: number, reason = 'wrong-primary') => ({
  kind: 'replicateFrom',
  pod: `cache-${ordinal}`,
  primaryPod: `cache-${of}`,
  reason,
});

/** A healthy 3-pod cluster: cache-0 labelled primary, cache-1 and cache-2 in sync. */
const healthy = () => [
  primary(0, { labelled: true, offset: 500, replicas: [1, 2] }),
  replica(1, 0, { offset: 500 }),
  replica(2, 0, { offset: 500 }),
];

/** cache-0 (labelled) stopped answering; its replicas have lost the link. */
const primaryDown = (offsets: [number, number] = [480, 500]) => [
  unreachable(0, { labelled: true }),
  orphanedReplica(1, 0, { offset: offsets[0] }),
  orphanedReplica(2, 0, { offset: offsets[1] }),
];

/** Plans with the detection timer already started at time 0 for cache-0. */
const afterDetection = (members: TopologyInput['members'], overrides: Partial<TopologyInput> = {}) =>
  planTopology(
    input(members, { nowMilliseconds: 2000, memory: { suspectPrimary: 'cache-0', primaryUnreachableSince: 0 }, ...overrides }),
  );

interface Scenario {
  readonly behaviour: string;
  readonly input: TopologyInput;
  readonly steps: unknown[];
  readonly primary: string | null;
  readonly health: string;
}

const scenarios: Scenario[] = [
  // Bootstrap and election from observed state.
  {
    behaviour: 'a fresh cluster elects ordinal 0, labels it and points the others at it',
    input: input([primary(0), primary(1), primary(2)]),
    steps: [label(0), follow(1, 0, 'demote-stale-primary'), follow(2, 0, 'demote-stale-primary')],
    primary: 'cache-0',
    health: 'Converging',
  },
  {
    behaviour: 'with no label, the reachable pod with the highest offset is elected',
    input: input([primary(0, { offset: 10 }), primary(1, { offset: 90 }), gone(2)]),
    steps: [label(1), follow(0, 1, 'demote-stale-primary')],
    primary: 'cache-1',
    health: 'Converging',
  },
  {
    behaviour: 'an election tie on offset goes to the lowest ordinal',
    input: input([gone(0), primary(1, { offset: 40 }), primary(2, { offset: 40 })]),
    steps: [label(1), follow(2, 1, 'demote-stale-primary')],
    primary: 'cache-1',
    health: 'Converging',
  },
  {
    behaviour: 'a half-done failover (old primary unlabelled and gone) is finished by promoting the most advanced replica',
    input: input([gone(0), orphanedReplica(1, 0, { offset: 700 }), orphanedReplica(2, 0, { offset: 650 })]),
    steps: [promote(1), label(1), follow(2, 1)],
    primary: 'cache-1',
    health: 'Converging',
  },
  {
    behaviour: 'a primary with replicas attached keeps the role when the label was lost, without any promotion',
    input: input([replica(0, 2, { offset: 900 }), replica(1, 2, { offset: 900 }), primary(2, { offset: 900, replicas: [0, 1] })]),
    steps: [label(2)],
    primary: 'cache-2',
    health: 'Converging',
  },
  {
    behaviour: 'a pod promoted by a controller that died before labelling it is labelled rather than a tied replica promoted',
    input: input([gone(0), orphanedReplica(1, 0, { offset: 300 }), primary(2, { offset: 300 })]),
    steps: [label(2), follow(1, 2)],
    primary: 'cache-2',
    health: 'Converging',
  },
  {
    behaviour: 'a labelled pod reporting role replica of a primary with replicas loses the label to that primary, unlabel first',
    input: input([replica(0, 1, { labelled: true, offset: 50 }), primary(1, { offset: 50, replicas: [0, 2] }), replica(2, 1, { offset: 50 })]),
    steps: [unlabel(0), label(1)],
    primary: 'cache-1',
    health: 'Converging',
  },
  {
    behaviour: 'a labelled pod reporting role replica of nothing reachable is promoted when it is the most advanced',
    input: input([orphanedReplica(0, 5, { labelled: true, offset: 80 }), replica(1, 0, { offset: 70 }), gone(2)]),
    steps: [promote(0)],
    primary: 'cache-0',
    health: 'Converging',
  },
  {
    behaviour: 'several labelled pods are reduced to the serving primary before anything else',
    input: input([primary(0, { labelled: true, offset: 100, replicas: [2] }), primary(1, { labelled: true, offset: 20 }), replica(2, 0, { offset: 100 })]),
    steps: [unlabel(1), follow(1, 0, 'demote-stale-primary')],
    primary: 'cache-0',
    health: 'Converging',
  },
  // Steady state.
  {
    behaviour: 'a healthy, correct topology yields zero actions',
    input: input(healthy()),
    steps: [],
    primary: 'cache-0',
    health: 'Healthy',
  },
  {
    behaviour: 'a pod reporting role primary beside the labelled primary is demoted (fenced)',
    input: input([primary(0, { labelled: true, offset: 500, replicas: [1] }), replica(1, 0, { offset: 500 }), primary(2, { offset: 520 })]),
    steps: [follow(2, 0, 'demote-stale-primary')],
    primary: 'cache-0',
    health: 'Converging',
  },
  {
    behaviour: 'a replica following the wrong address is repointed',
    input: input([primary(0, { labelled: true, offset: 500, replicas: [1] }), replica(1, 0, { offset: 500 }), orphanedReplica(2, 7)]),
    steps: [follow(2, 0)],
    primary: 'cache-0',
    health: 'Converging',
  },
  {
    behaviour: 'a replica whose link to the right primary is down too long is told to reconnect',
    input: input([
      primary(0, { labelled: true, offset: 500, replicas: [1] }),
      replica(1, 0, { offset: 500 }),
      orphanedReplica(2, 0, { observation: { primaryLinkDownSinceSeconds: 45 } }),
    ]),
    steps: [follow(2, 0, 'link-down')],
    primary: 'cache-0',
    health: 'Converging',
  },
  {
    behaviour: 'a replica whose link is briefly down or syncing is left alone and the cluster reported degraded',
    input: input([
      primary(0, { labelled: true, offset: 500, replicas: [1] }),
      replica(1, 0, { offset: 500 }),
      orphanedReplica(2, 0, { observation: { primaryLinkDownSinceSeconds: 45, syncInProgress: true } }),
    ]),
    steps: [],
    primary: 'cache-0',
    health: 'Degraded',
  },
  {
    behaviour: 'min-replicas-to-write is set on every serving pod that differs',
    input: input(healthy(), { minReplicasToWrite: 1 }),
    steps: ['cache-0', 'cache-1', 'cache-2'].map((pod) => ({ kind: 'setMinReplicasToWrite', pod, value: 1 })),
    primary: 'cache-0',
    health: 'Converging',
  },
  {
    behaviour: 'fewer in-sync replicas than desired reports degraded with no actions',
    input: input([primary(0, { labelled: true, offset: 500, replicas: [1] }), replica(1, 0, { offset: 500 }), gone(2)]),
    steps: [],
    primary: 'cache-0',
    health: 'Degraded',
  },
  // Failure of the labelled primary.
  {
    behaviour: 'a primary that just became unreachable starts the timer and does not fail over',
    input: input(primaryDown()),
    steps: [],
    primary: 'cache-0',
    health: 'PrimarySuspect',
  },
  {
    behaviour: 'after the detection time the replica with the highest offset is promoted: unlabel, promote, label, repoint',
    input: input(primaryDown([480, 500]), { nowMilliseconds: 2000, memory: { suspectPrimary: 'cache-0', primaryUnreachableSince: 0 } }),
    steps: [unlabel(0), promote(2), label(2), follow(1, 2)],
    primary: 'cache-2',
    health: 'Converging',
  },
  {
    behaviour: 'a failover tie on offset goes to the lowest ordinal',
    input: input(primaryDown([500, 500]), { nowMilliseconds: 2000, memory: { suspectPrimary: 'cache-0', primaryUnreachableSince: 0 } }),
    steps: [unlabel(0), promote(1), label(1), follow(2, 1)],
    primary: 'cache-1',
    health: 'Converging',
  },
  {
    behaviour: 'a labelled primary whose pod is gone counts as unreachable',
    input: input([gone(0, { labelled: true }), orphanedReplica(1, 0, { offset: 10 }), orphanedReplica(2, 0, { offset: 20 })], {
      nowMilliseconds: 2500,
      memory: { suspectPrimary: 'cache-0', primaryUnreachableSince: 0 },
    }),
    steps: [unlabel(0), promote(2), label(2), follow(1, 2)],
    primary: 'cache-2',
    health: 'Converging',
  },
  {
    behaviour: 'a loading replica is not a failover candidate even with the highest offset',
    input: input(
      [unreachable(0, { labelled: true }), orphanedReplica(1, 0, { offset: 400 }), orphanedReplica(2, 0, { offset: 900, observation: { loading: true } })],
      { nowMilliseconds: 2000, memory: { suspectPrimary: 'cache-0', primaryUnreachableSince: 0 } },
    ),
    steps: [unlabel(0), promote(1), label(1)],
    primary: 'cache-1',
    health: 'Converging',
  },
  {
    behaviour: 'failover is vetoed while a replica heard from the primary at most 1 s ago',
    input: input([unreachable(0, { labelled: true }), replica(1, 0, { offset: 500, observation: { primaryLastIoSecondsAgo: 1 } }), orphanedReplica(2, 0)], {
      nowMilliseconds: 5000,
      memory: { suspectPrimary: 'cache-0', primaryUnreachableSince: 0 },
    }),
    steps: [],
    primary: 'cache-0',
    health: 'PrimarySuspect',
  },
  {
    behaviour: 'a replica whose link is still up but silent for 2 s (a frozen primary) does not veto',
    input: input([unreachable(0, { labelled: true }), replica(1, 0, { offset: 500, observation: { primaryLastIoSecondsAgo: 2 } }), orphanedReplica(2, 0, { offset: 400 })], {
      nowMilliseconds: 2000,
      memory: { suspectPrimary: 'cache-0', primaryUnreachableSince: 0 },
    }),
    steps: [unlabel(0), promote(1), label(1), follow(2, 1)],
    primary: 'cache-1',
    health: 'Converging',
  },
  {
    behaviour: 'with automatic failover off an unreachable primary stays labelled and the cluster is degraded',
    input: input(primaryDown(), { automaticFailover: false, nowMilliseconds: 60_000, memory: { suspectPrimary: 'cache-0', primaryUnreachableSince: 0 } }),
    steps: [],
    primary: 'cache-0',
    health: 'Degraded',
  },
  {
    behaviour: 'with no reachable replica nothing is promoted and the cluster is degraded',
    input: input([unreachable(0, { labelled: true }), unreachable(1), gone(2)], {
      nowMilliseconds: 60_000,
      memory: { suspectPrimary: 'cache-0', primaryUnreachableSince: 0 },
    }),
    steps: [],
    primary: 'cache-0',
    health: 'Degraded',
  },
  {
    behaviour: 'an old primary that is reachable again after a failover is demoted to a replica of the new one',
    input: input([primary(0, { offset: 520 }), primary(1, { labelled: true, offset: 600, replicas: [2] }), replica(2, 1, { offset: 600 })]),
    steps: [follow(0, 1, 'demote-stale-primary')],
    primary: 'cache-1',
    health: 'Converging',
  },
];

describe('planTopology', () => {
  it.each(scenarios.map((scenario) => [scenario.behaviour, scenario] as const))('%s', (_behaviour, scenario) => {
    const plan = planTopology(scenario.input);
    expect(steps(plan.actions)).toEqual(scenario.steps);
    expect(plan.primary).toBe(scenario.primary);
    expect(plan.health).toBe(scenario.health);
  });

  it.each(scenarios.map((scenario) => [scenario.behaviour, scenario] as const))(
    'never has two pods labelled primary at once while carrying out: %s',
    (_behaviour, scenario) => {
      const labelled = new Set(scenario.input.members.filter((member) => member.labelledPrimary).map((member) => member.name));
      const maximum = Math.max(1, labelled.size);
      for (const action of planTopology(scenario.input).actions) {
        if (action.kind === 'unlabelPrimary') labelled.delete(action.pod);
        if (action.kind === 'labelPrimary') labelled.add(action.pod);
        expect(labelled.size).toBeLessThanOrEqual(maximum);
      }
    },
  );

  it('never promotes or labels a pod that is not serving', () => {
    for (const scenario of scenarios) {
      const serving = new Set(
        scenario.input.members.filter((member) => member.observation?.reachable && !member.observation.loading).map((member) => member.name),
      );
      const touched = planTopology(scenario.input).actions.flatMap((action: TopologyAction) =>
        action.kind === 'promote' || action.kind === 'labelPrimary' ? [action.pod] : [],
      );
      expect(touched.filter((pod) => !serving.has(pod))).toEqual([]);
    }
  });
});

describe('planTopology failure detection', () => {
  it('starts the timer at now and emits one PrimaryUnreachable warning', () => {
    const plan = planTopology(input(primaryDown(), { nowMilliseconds: 7000 }));
    expect(plan.memory).toEqual({ suspectPrimary: 'cache-0', primaryUnreachableSince: 7000 });
    expect(events(plan.actions)).toEqual(['PrimaryUnreachable']);
  });

  it('keeps the timer and stays quiet on later calls before the detection time', () => {
    const plan = planTopology(input(primaryDown(), { nowMilliseconds: 1500, memory: { suspectPrimary: 'cache-0', primaryUnreachableSince: 0 } }));
    expect(plan.memory.primaryUnreachableSince).toBe(0);
    expect(plan.actions).toEqual([]);
  });

  it('asks to be called again by the end of the detection time, and at least every probe interval', () => {
    const nearEnd = planTopology(input(primaryDown(), { nowMilliseconds: 1800, memory: { suspectPrimary: 'cache-0', primaryUnreachableSince: 0 } }));
    expect(nearEnd.requeueAfterMilliseconds).toBe(200);
    const early = planTopology(input(primaryDown(), { nowMilliseconds: 100, memory: { suspectPrimary: 'cache-0', primaryUnreachableSince: 0 } }));
    expect(early.requeueAfterMilliseconds).toBe(500);
  });

  it('gives the same reason on every call while the same outage lasts, so status is not rewritten per probe', () => {
    const memory = { suspectPrimary: 'cache-0', primaryUnreachableSince: 0 };
    const reasons = [300, 900, 1700, 5000, 9000].map((now) => planTopology(input(primaryDown(), { nowMilliseconds: now, memory, automaticFailover: false })).reason);
    expect(new Set(reasons.slice(3)).size).toBe(1);
    expect(new Set(reasons.slice(0, 3)).size).toBe(1);
    expect(reasons[0]).toContain('since 1970-01-01T00:00:00.000Z');
  });

  it('honours a custom detection time', () => {
    const plan = afterDetection(primaryDown(), { failureDetectionMilliseconds: 5000 });
    expect(plan.health).toBe('PrimarySuspect');
  });

  it('restarts the timer when the memory belongs to another pod (e.g. after a previous failover)', () => {
    const plan = planTopology(input(primaryDown(), { nowMilliseconds: 9000, memory: { suspectPrimary: 'cache-5', primaryUnreachableSince: 0 } }));
    expect(plan.memory.primaryUnreachableSince).toBe(9000);
    expect(plan.health).toBe('PrimarySuspect');
  });

  it('forgets the timer and reports PrimaryRecovered when the primary answers again before failover', () => {
    const plan = planTopology(input(healthy(), { memory: { suspectPrimary: 'cache-0', primaryUnreachableSince: 0 } }));
    expect(plan.memory).toEqual({});
    expect(events(plan.actions)).toEqual(['PrimaryRecovered']);
    expect(plan.health).toBe('Healthy');
  });

  it('emits a PrimaryFailedOver warning naming both pods and clears the memory', () => {
    const plan = afterDetection(primaryDown());
    const event = plan.actions.find((action) => action.kind === 'emitEvent');
    expect(event).toMatchObject({ type: 'Warning', reason: 'PrimaryFailedOver', message: expect.stringContaining('cache-0') });
    expect(event).toMatchObject({ message: expect.stringContaining('to cache-2') });
    expect(plan.memory).toEqual({});
  });

  it('explains a veto by naming the replica that still hears from the primary', () => {
    const plan = afterDetection([unreachable(0, { labelled: true }), replica(1, 0, { observation: { primaryLastIoSecondsAgo: 0 } }), gone(2)]);
    expect(plan.reason).toMatch(/replica cache-1 still hears from it/);
  });

  it('reports the number of in-sync replicas of the primary', () => {
    expect(planTopology(input(healthy())).readyReplicas).toBe(2);
  });
});
