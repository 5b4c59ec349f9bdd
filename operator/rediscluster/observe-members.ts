import { ROLE_LABEL, ROLE_PRIMARY, REDIS_PORT } from '../../src/naming';
import type { RedisAdministration } from '../redis';
import type { ClusterMember } from '../topology';
import { ordinalOf, type PodObject } from './cluster-object';

/**
 * Probes every pod of a cluster in parallel (PING + INFO, each bounded by the pool's timeouts) and returns the
 * members the topology planner decides from. A Terminating pod that still runs is probed too: it may still be a
 * primary taking writes, which the planner must see to fence it. A pod without an address is a member with no
 * observation.
 */
export async function observeMembers(admin: Pick<RedisAdministration, 'probe'>, clusterName: string, pods: readonly PodObject[], password: string): Promise<ClusterMember[]> {
  const members = pods
    .map((pod) => ({ pod, ordinal: ordinalOf(clusterName, pod.metadata.name!) }))
    .filter((entry): entry is { pod: PodObject; ordinal: number } => entry.ordinal !== undefined)
    .sort((a, b) => a.ordinal - b.ordinal);
  return Promise.all(
    members.map(async ({ pod, ordinal }) => {
      const address = pod.status?.phase === 'Running' ? (pod.status.podIP ?? null) : null;
      const observation = address ? await admin.probe({ host: address, port: REDIS_PORT, password }) : null;
      return {
        name: pod.metadata.name!,
        ordinal,
        address,
        terminating: pod.metadata.deletionTimestamp !== undefined,
        labelledPrimary: pod.metadata.labels?.[ROLE_LABEL] === ROLE_PRIMARY,
        observation,
      };
    }),
  );
}
