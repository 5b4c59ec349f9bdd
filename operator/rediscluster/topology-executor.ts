import type { KubernetesClient, EventRecorder } from '../runtime';
import { ROLE_LABEL, ROLE_PRIMARY, ROLE_REPLICA, REDIS_PORT } from '../../src/naming';
import type { RedisAdmin } from '../redis';
import type { ClusterMember, TopologyAction } from '../topology';
import type { RedisClusterObject } from './cluster-object';

/** Sets or removes a pod's role label (a merge patch: one field, no read-modify-write race). */
export function labelPod(client: KubernetesClient, namespace: string, pod: string, role: string | null): Promise<unknown> {
  return client.mergePatch({ apiVersion: 'v1', kind: 'Pod', namespace, name: pod }, { metadata: { labels: { [ROLE_LABEL]: role } } });
}

/**
 * Carries out the planner's actions in order and stops at the first failure (the caller re-plans from fresh
 * observations). Returns whether a promotion happened.
 */
export async function executeTopologyActions(
  actions: readonly TopologyAction[],
  context: {
    readonly client: KubernetesClient;
    readonly admin: RedisAdmin;
    readonly recorder: EventRecorder;
    readonly cluster: RedisClusterObject;
    readonly members: readonly ClusterMember[];
    readonly password: string;
  },
): Promise<{ promoted: boolean }> {
  const namespace = context.cluster.metadata.namespace!;
  const endpointOf = (pod: string) => {
    const address = context.members.find((member) => member.name === pod)?.address;
    if (!address) throw new Error(`pod ${pod} has no address`);
    return { host: address, port: REDIS_PORT, password: context.password };
  };
  let promoted = false;
  for (const action of actions) {
    switch (action.kind) {
      case 'unlabelPrimary':
        await labelPod(context.client, namespace, action.pod, null);
        break;
      case 'promote':
        await context.admin.promoteToPrimary(endpointOf(action.pod));
        promoted = true;
        break;
      case 'labelPrimary':
        await labelPod(context.client, namespace, action.pod, ROLE_PRIMARY);
        break;
      case 'replicateFrom':
        await context.admin.makeReplicaOf(endpointOf(action.pod), action.primaryAddress, action.primaryPort);
        break;
      case 'setMinReplicasToWrite':
        await context.admin.configSet(endpointOf(action.pod), { 'min-replicas-to-write': String(action.value) });
        break;
      case 'emitEvent':
        await context.recorder.event(context.cluster, { type: action.type, reason: action.reason, action: 'Topology', note: action.message });
        break;
    }
  }
  return { promoted };
}

/** Role labels for pods the planner does not label: replicas linked to the primary get `replica`, others none. */
export function replicaLabelChanges(members: readonly ClusterMember[], primary: string | null, currentLabels: ReadonlyMap<string, string | undefined>): Array<{ pod: string; role: string | null }> {
  const primaryAddress = members.find((member) => member.name === primary)?.address;
  const changes: Array<{ pod: string; role: string | null }> = [];
  for (const member of members) {
    if (member.name === primary) continue;
    const observation = member.observation;
    const linked = primaryAddress !== undefined && observation?.reachable === true && observation.role === 'replica' && observation.primaryLinkUp && observation.primaryHost === primaryAddress;
    const wanted = linked ? ROLE_REPLICA : null;
    const current = currentLabels.get(member.name) ?? null;
    // Never strip the primary label here: only the planner moves it (unlabel before label, never two primaries).
    if (current === ROLE_PRIMARY) continue;
    if (current !== wanted) changes.push({ pod: member.name, role: wanted });
  }
  return changes;
}
