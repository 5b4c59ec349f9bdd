import { replicaLabelChanges } from '../../../operator/rediscluster/topology-executor';
import { ROLE_PRIMARY, ROLE_REPLICA } from '../../../src/naming';
import { linkedReplica, member, podName, replicaOf, servingPrimary, unreachableObservation } from './builders';

/** Current role labels by pod name; pods not listed carry none. */
function labels(entries: Record<string, string>): ReadonlyMap<string, string | undefined> {
  return new Map(Object.entries(entries));
}

describe('replicaLabelChanges', () => {
  it('labels linked replicas as replica', () => {
    const members = [servingPrimary(0), linkedReplica(1, 0), linkedReplica(2, 0)];
    expect(replicaLabelChanges(members, podName(0), labels({ 'cache-0': ROLE_PRIMARY }))).toEqual([
      { pod: 'cache-1', role: ROLE_REPLICA },
      { pod: 'cache-2', role: ROLE_REPLICA },
    ]);
  });

  it('changes nothing when every label is already right', () => {
    const members = [servingPrimary(0), linkedReplica(1, 0), linkedReplica(2, 0)];
    expect(replicaLabelChanges(members, podName(0), labels({ 'cache-0': ROLE_PRIMARY, 'cache-1': ROLE_REPLICA, 'cache-2': ROLE_REPLICA }))).toEqual([]);
  });

  it('removes the replica label from a replica whose link is down', () => {
    const members = [servingPrimary(0), member({ ordinal: 1, observation: replicaOf(0, { primaryLinkUp: false }) })];
    expect(replicaLabelChanges(members, podName(0), labels({ 'cache-1': ROLE_REPLICA }))).toEqual([{ pod: 'cache-1', role: null }]);
  });

  it('removes the replica label from a replica following another address', () => {
    const members = [servingPrimary(0), linkedReplica(1, 2), linkedReplica(2, 0)];
    expect(replicaLabelChanges(members, podName(0), labels({ 'cache-1': ROLE_REPLICA, 'cache-2': ROLE_REPLICA }))).toEqual([{ pod: 'cache-1', role: null }]);
  });

  it('removes the replica label from a pod whose Redis does not answer', () => {
    const members = [servingPrimary(0), member({ ordinal: 1, observation: unreachableObservation(1) })];
    expect(replicaLabelChanges(members, podName(0), labels({ 'cache-1': ROLE_REPLICA }))).toEqual([{ pod: 'cache-1', role: null }]);
  });

  it('removes the replica label from a pod that was not probed', () => {
    const members = [servingPrimary(0), member({ ordinal: 1, address: null, observation: null })];
    expect(replicaLabelChanges(members, podName(0), labels({ 'cache-1': ROLE_REPLICA }))).toEqual([{ pod: 'cache-1', role: null }]);
  });

  it('leaves an unlinked pod without a label alone', () => {
    const members = [servingPrimary(0), member({ ordinal: 1, observation: replicaOf(0, { primaryLinkUp: false }) })];
    expect(replicaLabelChanges(members, podName(0), labels({}))).toEqual([]);
  });

  it('never strips the primary label from another pod, even an unlinked one', () => {
    const members = [servingPrimary(0), member({ ordinal: 1, labelledPrimary: true, observation: unreachableObservation(1) })];
    expect(replicaLabelChanges(members, podName(0), labels({ 'cache-0': ROLE_PRIMARY, 'cache-1': ROLE_PRIMARY }))).toEqual([]);
  });

  it('never relabels the primary pod itself', () => {
    const members = [servingPrimary(0), linkedReplica(1, 0)];
    expect(replicaLabelChanges(members, podName(0), labels({ 'cache-0': ROLE_REPLICA, 'cache-1': ROLE_REPLICA }))).toEqual([]);
  });

  it('removes every replica label when there is no primary', () => {
    const members = [linkedReplica(1, 0), linkedReplica(2, 0)];
    expect(replicaLabelChanges(members, null, labels({ 'cache-1': ROLE_REPLICA, 'cache-2': ROLE_REPLICA }))).toEqual([
      { pod: 'cache-1', role: null },
      { pod: 'cache-2', role: null },
    ]);
  });

  it('keeps the primary label when there is no primary', () => {
    const members = [member({ ordinal: 0, labelledPrimary: true, observation: unreachableObservation(0) }), linkedReplica(1, 0)];
    expect(replicaLabelChanges(members, null, labels({ 'cache-0': ROLE_PRIMARY }))).toEqual([]);
  });
});
