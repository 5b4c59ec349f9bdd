import { bestSwitchoverTarget, planRollout, type RolloutInput } from '../../../operator/rediscluster/rollout-plan';
import type { ClusterMember } from '../../../operator/topology';
import { linkedReplica, member, primaryObservation, replicaOf, servingPrimary, unreachableObservation } from './builders';

const NEW_REVISION = 'cache-7d9f';
const OLD_REVISION = 'cache-5b4c';

interface RolloutOptions extends Partial<Omit<RolloutInput, 'members' | 'podRevisions' | 'podReady'>> {
  /** Pods still on the old revision; every other pod has the new one. */
  readonly outdated?: readonly string[];
  /** Pods whose Ready condition is False; every other pod is Ready. */
  readonly notReady?: readonly string[];
}

/** A settled cluster on the new revision, primary `cache-0`, desired size = number of members, every pod Ready. */
function rolloutInput(members: readonly ClusterMember[], { outdated = [], notReady = [], ...overrides }: RolloutOptions = {}): RolloutInput {
  return {
    members,
    podRevisions: new Map(members.map((pod) => [pod.name, outdated.includes(pod.name) ? OLD_REVISION : NEW_REVISION])),
    podReady: new Map(members.map((pod) => [pod.name, !notReady.includes(pod.name)])),
    updateRevision: NEW_REVISION,
    desiredReplicas: members.length,
    primary: 'cache-0',
    topologySettled: true,
    ...overrides,
  };
}

/** Primary cache-0 with linked replicas cache-1 and cache-2, all at the same offset. */
const threePods = () => [servingPrimary(0, 500), linkedReplica(1, 0, 500), linkedReplica(2, 0, 500)];

describe('planRollout', () => {
  it('waits while the replication topology is not settled', () => {
    expect(planRollout(rolloutInput(threePods(), { topologySettled: false, outdated: ['cache-2'] }))).toMatchObject({ kind: 'wait' });
  });

  it('waits while there is no serving primary', () => {
    expect(planRollout(rolloutInput(threePods(), { primary: null, outdated: ['cache-2'] }))).toMatchObject({ kind: 'wait' });
  });

  it('waits when the named primary is not among the members', () => {
    expect(planRollout(rolloutInput(threePods(), { primary: 'cache-9', outdated: ['cache-2'] }))).toMatchObject({ kind: 'wait' });
  });

  it('has nothing to do when every pod has the update revision', () => {
    expect(planRollout(rolloutInput(threePods()))).toEqual({ kind: 'none' });
  });

  it('has nothing to do before the StatefulSet reports an update revision', () => {
    expect(planRollout(rolloutInput(threePods(), { updateRevision: undefined, outdated: ['cache-0', 'cache-1', 'cache-2'] }))).toEqual({ kind: 'none' });
  });

  it('switches over to a replica below the new size when a scale-down would remove the primary', () => {
    const members = [linkedReplica(0, 2, 500), linkedReplica(1, 2, 500), servingPrimary(2, 500)];
    expect(planRollout(rolloutInput(members, { primary: 'cache-2', desiredReplicas: 2 }))).toMatchObject({ kind: 'switchover', from: 'cache-2', to: 'cache-0' });
  });

  it('switches over on scale-down to the replica with the highest offset', () => {
    const members = [linkedReplica(0, 2, 480), linkedReplica(1, 2, 500), servingPrimary(2, 500)];
    expect(planRollout(rolloutInput(members, { primary: 'cache-2', desiredReplicas: 2 }))).toMatchObject({ kind: 'switchover', to: 'cache-1' });
  });

  it('never switches over on scale-down to a replica that is itself being removed', () => {
    const members = [linkedReplica(0, 3, 480), servingPrimary(3, 500), linkedReplica(4, 3, 500)];
    expect(planRollout(rolloutInput(members, { primary: 'cache-3', desiredReplicas: 3 }))).toMatchObject({ kind: 'switchover', to: 'cache-0' });
  });

  it('waits on scale-down until a replica below the new size is linked to the primary', () => {
    const members = [member({ ordinal: 0, observation: replicaOf(2, { primaryLinkUp: false }) }), linkedReplica(1, 0), servingPrimary(2)];
    expect(planRollout(rolloutInput(members, { primary: 'cache-2', desiredReplicas: 2 }))).toMatchObject({ kind: 'wait' });
  });

  it('switches over on scale-down before rolling any outdated pod', () => {
    const members = [linkedReplica(0, 2), linkedReplica(1, 2), servingPrimary(2)];
    const step = planRollout(rolloutInput(members, { primary: 'cache-2', desiredReplicas: 2, outdated: ['cache-0', 'cache-1', 'cache-2'] }));
    expect(step).toMatchObject({ kind: 'switchover', from: 'cache-2' });
  });

  it('restarts an outdated replica before the outdated primary', () => {
    expect(planRollout(rolloutInput(threePods(), { outdated: ['cache-0', 'cache-1'] }))).toMatchObject({ kind: 'restartPod', pod: 'cache-1' });
  });

  it('restarts outdated replicas highest ordinal first', () => {
    expect(planRollout(rolloutInput(threePods(), { outdated: ['cache-0', 'cache-1', 'cache-2'] }))).toMatchObject({ kind: 'restartPod', pod: 'cache-2' });
  });

  it('does not roll pods at or above the desired size', () => {
    const members = [...threePods(), linkedReplica(3, 0, 500)];
    expect(planRollout(rolloutInput(members, { desiredReplicas: 3, outdated: ['cache-3'] }))).toEqual({ kind: 'none' });
  });

  it('switches over away from the outdated primary once every replica is current', () => {
    expect(planRollout(rolloutInput(threePods(), { outdated: ['cache-0'] }))).toMatchObject({ kind: 'switchover', from: 'cache-0', to: 'cache-1' });
  });

  it('switches over away from the outdated primary to the replica with the highest offset', () => {
    const members = [servingPrimary(0, 500), linkedReplica(1, 0, 490), linkedReplica(2, 0, 500)];
    expect(planRollout(rolloutInput(members, { outdated: ['cache-0'] }))).toMatchObject({ kind: 'switchover', to: 'cache-2' });
  });

  it('waits to roll the primary while no replica is linked to it', () => {
    const members = [servingPrimary(0), member({ ordinal: 1, observation: replicaOf(0, { primaryLinkUp: false }) })];
    expect(planRollout(rolloutInput(members, { outdated: ['cache-0'] }))).toMatchObject({ kind: 'wait' });
  });

  it('restarts the primary of a single-pod cluster', () => {
    expect(planRollout(rolloutInput([servingPrimary(0)], { outdated: ['cache-0'] }))).toMatchObject({ kind: 'restartPod', pod: 'cache-0' });
  });

  it('restarts the primary of a cluster scaled down to one pod while the removed pod still runs', () => {
    const members = [servingPrimary(0), linkedReplica(1, 0)];
    expect(planRollout(rolloutInput(members, { desiredReplicas: 1, outdated: ['cache-0'] }))).toMatchObject({ kind: 'restartPod', pod: 'cache-0' });
  });

  it('waits while a pod is not Ready, naming it', () => {
    const step = planRollout(rolloutInput(threePods(), { outdated: ['cache-2'], notReady: ['cache-1'] }));
    expect(step).toEqual({ kind: 'wait', reason: expect.stringContaining('cache-1') });
  });

  it('waits while a restarted pod has not become Ready yet', () => {
    expect(planRollout(rolloutInput(threePods(), { outdated: ['cache-0', 'cache-1'], notReady: ['cache-2'] }))).toMatchObject({ kind: 'wait' });
  });

  it('treats a pod whose readiness is unknown as not Ready', () => {
    const input = rolloutInput(threePods(), { outdated: ['cache-2'] });
    expect(planRollout({ ...input, podReady: new Map([['cache-0', true], ['cache-2', true]]) })).toMatchObject({ kind: 'wait' });
  });

  it('treats a pod whose revision is unknown as outdated', () => {
    const input = rolloutInput(threePods());
    expect(planRollout({ ...input, podRevisions: new Map([['cache-0', NEW_REVISION], ['cache-1', NEW_REVISION]]) })).toMatchObject({ kind: 'restartPod', pod: 'cache-2' });
  });
});

describe('bestSwitchoverTarget', () => {
  const everyone = () => true;

  it('picks the linked replica with the highest offset', () => {
    const primary = servingPrimary(0, 500);
    const members = [primary, linkedReplica(1, 0, 480), linkedReplica(2, 0, 500)];
    expect(bestSwitchoverTarget(members, primary, everyone)?.name).toBe('cache-2');
  });

  it('breaks offset ties by the lowest ordinal', () => {
    const primary = servingPrimary(0, 500);
    const members = [primary, linkedReplica(2, 0, 500), linkedReplica(1, 0, 500)];
    expect(bestSwitchoverTarget(members, primary, everyone)?.name).toBe('cache-1');
  });

  it('skips a replica whose link to the primary is down, however far ahead', () => {
    const primary = servingPrimary(0, 500);
    const members = [primary, member({ ordinal: 1, observation: replicaOf(0, { offset: 900, primaryLinkUp: false }) }), linkedReplica(2, 0, 400)];
    expect(bestSwitchoverTarget(members, primary, everyone)?.name).toBe('cache-2');
  });

  it("skips a replica that follows another address than the primary's", () => {
    const primary = servingPrimary(0, 500);
    const members = [primary, linkedReplica(1, 3, 900), linkedReplica(2, 0, 400)];
    expect(bestSwitchoverTarget(members, primary, everyone)?.name).toBe('cache-2');
  });

  it('skips a pod that reports role primary', () => {
    const primary = servingPrimary(0, 500);
    const members = [primary, member({ ordinal: 1, observation: primaryObservation({ offset: 900 }) }), linkedReplica(2, 0, 400)];
    expect(bestSwitchoverTarget(members, primary, everyone)?.name).toBe('cache-2');
  });

  it('skips pods whose Redis does not answer or that were not probed', () => {
    const primary = servingPrimary(0, 500);
    const members = [primary, member({ ordinal: 1, observation: unreachableObservation(1) }), member({ ordinal: 2, address: null })];
    expect(bestSwitchoverTarget(members, primary, everyone)).toBeUndefined();
  });

  it('skips replicas the caller does not allow', () => {
    const primary = servingPrimary(0, 500);
    const members = [primary, linkedReplica(1, 0, 400), linkedReplica(2, 0, 500)];
    expect(bestSwitchoverTarget(members, primary, (candidate) => candidate.ordinal < 2)?.name).toBe('cache-1');
  });

  it('finds nothing when no replica is linked to the primary', () => {
    const primary = servingPrimary(0, 500);
    expect(bestSwitchoverTarget([primary], primary, everyone)).toBeUndefined();
  });
});
