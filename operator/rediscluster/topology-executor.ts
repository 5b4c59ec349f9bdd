import { isConflict } from '../runtime/errors';
import type { EventRecorder, ObjectReader, ObjectWriter } from '../runtime';
import { ROLE_LABEL, ROLE_PRIMARY, ROLE_REPLICA, REDIS_PORT } from '../../src/naming';
import { FENCED_PRIMARY_HOST, FENCED_PRIMARY_PORT } from '../../src/workload/redis-conf';
import type { RedisAdministration } from '../redis';
import type { ClusterMember, TopologyAction } from '../topology';
import type { RedisClusterObject } from './cluster-object';
import { throwIfLeadershipLost } from './leadership';

/**
 * Sets or removes a pod's role label. With `resourceVersion` the patch carries it as a precondition, so a label
 * decided from a stale pod is refused (409) instead of applied (invariant I6).
 */
export function labelPod(
  client: Pick<ObjectWriter, 'mergePatch'>,
  namespace: string,
  pod: string,
  role: string | null,
  options: { resourceVersion?: string; signal?: AbortSignal; leaseCurrent?: () => boolean } = {},
): Promise<unknown> {
  throwIfLeadershipLost(options.signal, options.leaseCurrent);
  const metadata = options.resourceVersion === undefined ? { labels: { [ROLE_LABEL]: role } } : { resourceVersion: options.resourceVersion, labels: { [ROLE_LABEL]: role } };
  return client.mergePatch({ apiVersion: 'v1', kind: 'Pod', namespace, name: pod }, { metadata }, { signal: options.signal });
}

/**
 * {@link labelPod} with the cached resourceVersion; on 409 (the pod cache lags, e.g. a stalled watch) the pod is read
 * from the apiserver and the label written once more with its fresh resourceVersion. Safe because the decision
 * itself was already fenced by the record write (I5); returns the resourceVersion the pod has now.
 */
export async function labelPodFresh(
  client: Pick<ObjectReader, 'get'> & Pick<ObjectWriter, 'mergePatch'>,
  namespace: string,
  pod: string,
  role: string | null,
  options: { resourceVersion?: string; signal?: AbortSignal; leaseCurrent?: () => boolean },
): Promise<string | undefined> {
  try {
    return ((await labelPod(client, namespace, pod, role, options)) as { metadata?: { resourceVersion?: string } } | undefined)?.metadata?.resourceVersion;
  } catch (error) {
    if (!isConflict(error)) throw error;
    const fresh = await client.get<{ apiVersion: string; kind: string; metadata: { resourceVersion?: string } }>({ apiVersion: 'v1', kind: 'Pod', namespace, name: pod }, { signal: options.signal });
    const patched = (await labelPod(client, namespace, pod, role, { ...options, resourceVersion: fresh.metadata.resourceVersion })) as { metadata?: { resourceVersion?: string } } | undefined;
    return patched?.metadata?.resourceVersion;
  }
}

/** What the executor needs; the reconciler passes its collaborators. */
export interface TopologyExecutionContext {
  readonly client: Pick<ObjectReader, 'get'> & Pick<ObjectWriter, 'mergePatch'>;
  readonly admin: RedisAdministration;
  readonly recorder: EventRecorder;
  readonly cluster: RedisClusterObject;
  readonly members: readonly ClusterMember[];
  readonly password: string;
  /** Pod name → resourceVersion the decision was made from (label preconditions); updated by each label write. */
  readonly podResourceVersions: Map<string, string | undefined>;
  /** Aborted when the lease is lost: no further command or write (I6). */
  readonly signal: AbortSignal;
  /** The manager's synchronous lease check. @default - the signal alone */
  readonly leaseCurrent?: () => boolean;
}

/** What the execution did, for status and Events. */
export interface TopologyExecutionResult {
  readonly promoted: boolean;
  /** Set when a planned switchover did not complete; the old primary stays in charge. */
  readonly switchoverAborted?: string;
}

/**
 * Carries out the planner's actions in order and stops at the first failure (the caller re-plans from fresh
 * observations). The leadership signal is checked before every Redis command and API write.
 */
export async function executeTopologyActions(actions: readonly TopologyAction[], context: TopologyExecutionContext): Promise<TopologyExecutionResult> {
  const namespace = context.cluster.metadata.namespace!;
  const endpointOf = (pod: string) => {
    const address = context.members.find((member) => member.name === pod)?.address;
    if (!address) throw new Error(`pod ${pod} has no address`);
    return { host: address, port: REDIS_PORT, password: context.password };
  };
  const label = async (pod: string, role: string | null): Promise<void> => {
    const options = { resourceVersion: context.podResourceVersions.get(pod), signal: context.signal, leaseCurrent: context.leaseCurrent };
    context.podResourceVersions.set(pod, await labelPodFresh(context.client, namespace, pod, role, options));
  };
  let promoted = false;
  for (const action of actions) {
    throwIfLeadershipLost(context.signal, context.leaseCurrent);
    switch (action.kind) {
      case 'unlabelPrimary':
        await label(action.pod, null);
        break;
      case 'detach':
        await context.admin.makeReplicaOf(endpointOf(action.pod), FENCED_PRIMARY_HOST, FENCED_PRIMARY_PORT);
        break;
      case 'promote':
        await context.admin.promoteToPrimary(endpointOf(action.pod));
        promoted = true;
        break;
      case 'labelPrimary':
        await label(action.pod, ROLE_PRIMARY);
        break;
      case 'replicateFrom':
        await context.admin.makeReplicaOf(endpointOf(action.pod), action.primaryAddress, action.primaryPort, {
          // REPLICAOF to the primary already followed is a no-op in Redis: only a dropped link reconnects.
          reconnectIfAlreadyFollowing: action.reason === 'link-down',
        });
        if (action.reason === 'demote-stale-primary') {
          throwIfLeadershipLost(context.signal, context.leaseCurrent);
          await context.admin.disconnectClients(endpointOf(action.pod));
        }
        break;
      case 'switchover': {
        const others = context.members.filter((member) => member.name !== action.from && member.name !== action.to && member.address && !member.terminating);
        const result = await context.admin.switchover({
          primary: endpointOf(action.from),
          target: endpointOf(action.to),
          otherReplicas: others.map((member) => endpointOf(member.name)),
          signal: context.signal,
        });
        if (result.outcome !== 'completed') return { promoted, switchoverAborted: result.reason };
        promoted = true;
        await label(action.from, null);
        await label(action.to, ROLE_PRIMARY);
        break;
      }
      case 'setMinReplicasToWrite':
        try {
          await context.admin.configSet(endpointOf(action.pod), { 'min-replicas-to-write': String(action.value) });
        } catch (error) {
          // A refusal must not stop the pass before its status write: the live-config step sets the same parameter
          // and reports the refusal (ConfigRejected).
          if (!(error instanceof Error) || error.name !== 'RedisCommandError') throw error;
        }
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
