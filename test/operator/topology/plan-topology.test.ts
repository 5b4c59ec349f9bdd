import { planTopology, type PrimaryRecord, type TopologyInput, type TopologyPlan } from '../../../operator/topology';
import {
  emptyMember,
  events,
  gone,
  input,
  orphanedReplica,
  primary,
  refusing,
  replica,
  restartedFromAof,
  steps,
  terminating,
  unreachable,
} from './cluster-builders';

const unlabel = (ordinal: number) => ({ kind: 'unlabelPrimary', pod: `cache-${ordinal}` });
const detach = (ordinal: number) => ({ kind: 'detach', pod: `cache-${ordinal}` });
const promote = (ordinal: number) => ({ kind: 'promote', pod: `cache-${ordinal}` });
const label = (ordinal: number) => ({ kind: 'labelPrimary', pod: `cache-${ordinal}` });
const follow = (ordinal: number, of: number, reason = 'wrong-primary') => ({ kind: 'replicateFrom', pod: `cache-${ordinal}`, primaryPod: `cache-${of}`, reason });

/** The record of a cluster whose primary is cache-0 in epoch 4 of history `history-a`. */
const RECORD: PrimaryRecord = { primary: 'cache-0', epoch: 4, replicationId: 'history-a' };

/** A healthy 3-pod cluster: cache-0 labelled primary, cache-1 and cache-2 in sync. */
const healthy = () => [primary(0, { labelled: true, offset: 500, replicas: [1, 2] }), replica(1, 0, { offset: 500 }), replica(2, 0, { offset: 500 })];

/** cache-0 (labelled) stopped answering; its replicas have lost the link. */
const primaryDown = (offsets: [number, number] = [480, 500]) => [
  unreachable(0, { labelled: true }),
  orphanedReplica(1, 0, { offset: offsets[0] }),
  orphanedReplica(2, 0, { offset: offsets[1] }),
];

/** Plans with the detection timer for cache-0 started at 0, at a time past detection and the fence (3 s). */
const afterDetection = (members: TopologyInput['members'], overrides: Partial<TopologyInput> = {}): TopologyPlan =>
  planTopology(input(members, { record: RECORD, minReplicasToWrite: 1, nowMilliseconds: 3000, memory: { suspectPrimary: 'cache-0', primaryUnreachableSince: 0 }, ...overrides }));

describe('planTopology: bootstrap and adoption', () => {
  it('bootstraps a new cluster on ordinal 0 once every pod serves, and records it in epoch 1', () => {
    const plan = planTopology(input([emptyMember(0), emptyMember(1), emptyMember(2)]));
    expect(plan.record).toEqual({ primary: 'cache-0', epoch: 1 });
    expect(steps(plan.actions)).toEqual([promote(0), label(0), follow(1, 0), follow(2, 0)]);
  });

  it('does not bootstrap while a pod is missing: it may hold data', () => {
    const plan = planTopology(input([emptyMember(0), emptyMember(1), gone(2)]));
    expect(plan.record).toBeUndefined();
    expect(plan.actions).toEqual([]);
    expect(plan.reason).toMatch(/waiting for cache-2/);
  });

  it('bootstraps on the only pod holding data, not on ordinal 0', () => {
    const plan = planTopology(input([emptyMember(0), restartedFromAof(1), emptyMember(2)]));
    expect(plan.record).toEqual({ primary: 'cache-1', epoch: 1 });
  });

  it('refuses to guess between two pods holding data of unknown position', () => {
    const plan = planTopology(input([restartedFromAof(0), restartedFromAof(1), emptyMember(2)]));
    expect(plan.record).toBeUndefined();
    expect(plan.health).toBe('Degraded');
    expect(plan.reason).toMatch(/position unknown/);
  });

  it('adopts the labelled primary of a cluster made before the record existed', () => {
    const plan = planTopology(input(healthy()));
    expect(plan.record).toEqual({ primary: 'cache-0', epoch: 1, replicationId: 'history-a' });
    expect(steps(plan.actions)).toEqual([]);
  });
});

describe('planTopology: steady state', () => {
  it('does nothing and records nothing for a healthy, recorded cluster', () => {
    const plan = planTopology(input(healthy(), { record: RECORD, minReplicasToWrite: 0 }));
    expect(plan.actions).toEqual([]);
    expect(plan.record).toBeUndefined();
    expect(plan.health).toBe('Healthy');
  });

  it('records the replication ID of the primary once learned, in the same epoch', () => {
    const plan = planTopology(input(healthy(), { record: { primary: 'cache-0', epoch: 4 } }));
    expect(plan.record).toEqual({ primary: 'cache-0', epoch: 4, replicationId: 'history-a' });
  });

  it('demotes a returning old primary and unlabels every pod but the recorded primary', () => {
    const members = [primary(0, { labelled: true, offset: 500, replicas: [2] }), primary(1, { labelled: true, offset: 300 }), replica(2, 0, { offset: 500 })];
    const plan = planTopology(input(members, { record: RECORD }));
    expect(steps(plan.actions)).toEqual([unlabel(1), follow(1, 0, 'demote-stale-primary')]);
    expect(events(plan.actions)).toEqual(expect.arrayContaining(['MultiplePrimaryLabels', 'StalePrimaryDemoted']));
  });

  it('reconnects a replica whose link to the right primary stayed down too long', () => {
    const members = [primary(0, { labelled: true, offset: 500, replicas: [1] }), replica(1, 0, { offset: 500 }), orphanedReplica(2, 0, { offset: 400, observation: { primaryLinkDownSinceSeconds: 31 } })];
    expect(steps(planTopology(input(members, { record: RECORD })).actions)).toEqual([follow(2, 0, 'link-down')]);
  });

  it('sets min-replicas-to-write on every serving pod that does not have it', () => {
    const plan = planTopology(input(healthy(), { record: RECORD, minReplicasToWrite: 1 }));
    expect(plan.actions.filter((action) => action.kind === 'setMinReplicasToWrite').map((action) => action.kind === 'setMinReplicasToWrite' && action.pod)).toEqual(['cache-0', 'cache-1', 'cache-2']);
  });

  it('switches over away from a Terminating primary that still serves, recording the target first', () => {
    const members = [terminating(primary(0, { labelled: true, offset: 500, replicas: [1, 2] })), replica(1, 0, { offset: 500 }), replica(2, 0, { offset: 500 })];
    const plan = planTopology(input(members, { record: RECORD }));
    expect(plan.record).toEqual({ primary: 'cache-1', epoch: 5, replicationId: 'history-a' });
    expect(steps(plan.actions)).toEqual([{ kind: 'switchover', from: 'cache-0', to: 'cache-1', reason: 'primary cache-0 is Terminating' }]);
  });
});

describe('planTopology: the recorded primary restarts', () => {
  it('promotes the recorded primary again after a restart from AOF (unknown position, its own data)', () => {
    const members = [restartedFromAof(0, { labelled: true }), orphanedReplica(1, 0, { offset: 500 }), orphanedReplica(2, 0, { offset: 200 })];
    const plan = planTopology(input(members, { record: RECORD }));
    expect(steps(plan.actions)).toEqual([promote(0), follow(1, 0), follow(2, 0)]);
    expect(events(plan.actions)).toContain('PrimaryRestarted');
    expect(plan.record).toBeUndefined();
  });

  it('treats a recorded primary that came back empty as down: it never takes the role back', () => {
    const members = [emptyMember(0, { labelled: true }), orphanedReplica(1, 0, { offset: 500 }), orphanedReplica(2, 0, { offset: 480 })];
    const first = planTopology(input(members, { record: RECORD, minReplicasToWrite: 1, nowMilliseconds: 100 }));
    expect(steps(first.actions)).toEqual([]);
    expect(first.health).toBe('PrimarySuspect');
    const later = planTopology(input(members, { record: RECORD, minReplicasToWrite: 1, nowMilliseconds: 3100, memory: first.memory }));
    expect(later.record).toEqual({ primary: 'cache-1', epoch: 5, replicationId: 'history-a' });
    expect(steps(later.actions)).toEqual([unlabel(0), detach(2), promote(1), label(1), follow(0, 1), follow(2, 1)]);
  });

  it('promotes a recorded member chosen while nothing was written, which the last pass did not promote yet', () => {
    const emptyInHistory = { observation: { replicationId: 'history-a', position: { kind: 'empty' as const, replicationId: 'history-a' } } };
    const members = [unreachable(0), emptyMember(1, emptyInHistory), emptyMember(2, emptyInHistory)];
    const plan = planTopology(input(members, { record: { primary: 'cache-1', epoch: 5, replicationId: 'history-a' } }));
    expect(steps(plan.actions)).toEqual([promote(1), label(1), follow(2, 1)]);
  });

  it('records the live primary a recorded-but-unpromoted target follows (an unfinished switchover)', () => {
    const members = [primary(0, { offset: 500, replicas: [1, 2] }), replica(1, 0, { offset: 500 }), replica(2, 0, { offset: 500 })];
    const plan = planTopology(input(members, { record: { primary: 'cache-1', epoch: 5 } }));
    expect(plan.record).toEqual({ primary: 'cache-0', epoch: 6, replicationId: 'history-a' });
    expect(steps(plan.actions)).toEqual([label(0)]);
  });
});

describe('planTopology: I4, a reply proves the primary alive', () => {
  it.each(['WRONGPASS invalid username-password pair', 'NOAUTH Authentication required.', 'BUSY Redis is busy running a script.'])('never starts the failure timer on %s', (reply) => {
    const members = [refusing(0, reply, { labelled: true }), orphanedReplica(1, 0, { offset: 500 }), orphanedReplica(2, 0, { offset: 500 })];
    const plan = afterDetection(members);
    expect(plan.actions).toEqual([]);
    expect(plan.memory).toEqual({});
    expect(plan.reason).toMatch(/alive but not usable/);
  });

  it('does not fail over while the primary loads its data set', () => {
    const loading = primary(0, { labelled: true, observation: { loading: true } });
    expect(afterDetection([loading, replica(1, 0), replica(2, 0)]).actions).toEqual([]);
  });
});

describe('planTopology: failover', () => {
  it('starts the timer and waits while the primary is first seen down', () => {
    const plan = planTopology(input(primaryDown(), { record: RECORD, nowMilliseconds: 1000 }));
    expect(steps(plan.actions)).toEqual([]);
    expect(events(plan.actions)).toEqual(['PrimaryUnreachable']);
    expect(plan.memory).toEqual({ suspectPrimary: 'cache-0', primaryUnreachableSince: 1000 });
    expect(plan.health).toBe('PrimarySuspect');
  });

  it('with min-replicas-to-write, waits past detection until the old primary refuses writes by itself (I2)', () => {
    const plan = afterDetection(primaryDown(), { nowMilliseconds: 2500 });
    expect(plan.record).toBeUndefined();
    expect(plan.health).toBe('PrimarySuspect');
  });

  it('records epoch + 1, unlabels, detaches every other replica, then promotes the most advanced and repoints', () => {
    const plan = afterDetection(primaryDown([480, 500]));
    expect(plan.record).toEqual({ primary: 'cache-2', epoch: 5, replicationId: 'history-a' });
    expect(steps(plan.actions)).toEqual([unlabel(0), detach(1), promote(2), label(2), follow(1, 2)]);
    expect(events(plan.actions)).toContain('PrimaryFailedOver');
  });

  it('breaks an offset tie by the lowest ordinal', () => {
    expect(afterDetection(primaryDown([500, 500])).record).toEqual({ primary: 'cache-1', epoch: 5, replicationId: 'history-a' });
  });

  it('does not fail over when automatic failover is off, even once the pod object is gone', () => {
    const plan = afterDetection([orphanedReplica(1, 0, { offset: 500 }), orphanedReplica(2, 0, { offset: 500 })], { automaticFailover: false });
    expect(plan.record).toBeUndefined();
    expect(plan.reason).toMatch(/automatic failover is off/);
  });

  it('is vetoed while a replica still hears from the primary', () => {
    const members = [unreachable(0, { labelled: true }), replica(1, 0, { offset: 500 }), orphanedReplica(2, 0, { offset: 500 })];
    const plan = afterDetection(members);
    expect(plan.record).toBeUndefined();
    expect(plan.reason).toMatch(/still hears from it/);
  });
});

describe('planTopology: I1, only a provably current member is promoted', () => {
  it('waits when another member is unreachable: it may hold acknowledged writes', () => {
    const plan = afterDetection([unreachable(0, { labelled: true }), unreachable(1), orphanedReplica(2, 0, { offset: 500 })]);
    expect(plan.record).toBeUndefined();
    expect(plan.health).toBe('Degraded');
    expect(plan.reason).toMatch(/waiting for cache-1 \(unreachable/);
  });

  it('waits when another member restarted from AOF instead of ranking its offset 0 (the AOF double crash)', () => {
    const plan = afterDetection([gone(0, { labelled: true }), restartedFromAof(1), orphanedReplica(2, 0, { offset: 100, observation: { primaryLinkDownSinceSeconds: 20 } })]);
    expect(plan.record).toBeUndefined();
    expect(plan.reason).toMatch(/cache-1 \(position unknown/);
  });

  it('never promotes a member of another replication history', () => {
    const stale = orphanedReplica(1, 0, { offset: 900, observation: { replicationId: 'history-old' } });
    const plan = afterDetection([unreachable(0, { labelled: true }), stale, orphanedReplica(2, 0, { offset: 500 })]);
    expect(plan.record).toEqual({ primary: 'cache-2', epoch: 5, replicationId: 'history-a' });
  });

  it('accepts the history before a promotion (master_replid2) as the recorded one', () => {
    const promotedAlone = orphanedReplica(1, 0, {
      offset: 700,
      observation: { replicationId: 'history-b', position: { kind: 'known', replicationId: 'history-b', offset: 700, secondaryReplicationId: 'history-a', secondaryOffset: 600 } },
    });
    const plan = afterDetection([unreachable(0, { labelled: true }), promotedAlone, orphanedReplica(2, 0, { offset: 500 })]);
    expect(plan.record).toEqual({ primary: 'cache-1', epoch: 5, replicationId: 'history-a' });
  });

  it('promotes a replica that synced from an empty primary (same history, offset 0): nothing was ever written', () => {
    const synced = emptyMember(1, { observation: { replicationId: 'history-a', position: { kind: 'empty', replicationId: 'history-a' } } });
    const plan = afterDetection([unreachable(0, { labelled: true }), synced, emptyMember(2, { observation: { replicationId: 'history-a', position: { kind: 'empty', replicationId: 'history-a' } } })]);
    expect(plan.record).toEqual({ primary: 'cache-1', epoch: 5, replicationId: 'history-a' });
  });

  it('never promotes a replica that came back on an empty volume over waiting for the primary (the 2-pod case)', () => {
    const plan = afterDetection([unreachable(0, { labelled: true }), emptyMember(1)], { desiredReplicas: 2 });
    expect(plan.record).toBeUndefined();
    expect(plan.reason).toMatch(/cache-1 is empty/);
  });

  it('counts an empty member as holding nothing, not as unknown', () => {
    expect(afterDetection([unreachable(0, { labelled: true }), emptyMember(1), orphanedReplica(2, 0, { offset: 500 })]).record).toEqual({ primary: 'cache-2', epoch: 5, replicationId: 'history-a' });
  });

  it('never promotes a pod being scaled away, and waits when only it holds the most writes', () => {
    const members = [unreachable(0, { labelled: true }), orphanedReplica(1, 0, { offset: 400 }), orphanedReplica(2, 0, { offset: 500 })];
    const plan = afterDetection(members, { desiredReplicas: 2 });
    expect(plan.record).toBeUndefined();
    expect(plan.reason).toMatch(/cache-2 holds the most writes/);
  });

  it('never promotes a Terminating pod', () => {
    const members = [unreachable(0, { labelled: true }), orphanedReplica(1, 0, { offset: 500 }), terminating(orphanedReplica(2, 0, { offset: 500 }))];
    expect(afterDetection(members).record).toEqual({ primary: 'cache-1', epoch: 5, replicationId: 'history-a' });
  });

  it('lets a human force the choice with the annotation, and says so in an Event', () => {
    const plan = afterDetection([unreachable(0, { labelled: true }), unreachable(1), orphanedReplica(2, 0, { offset: 100 })], { forcedPrimary: 'cache-2' });
    expect(plan.record).toEqual({ primary: 'cache-2', epoch: 5, replicationId: 'history-a' });
    expect(events(plan.actions)).toEqual(expect.arrayContaining(['ForcedPrimary', 'PrimaryFailedOver']));
  });
});
