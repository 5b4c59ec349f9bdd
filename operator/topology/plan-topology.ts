import { isServing, mostAdvanced, type ServingMember } from './member-ranking';
import type { ClusterMember, TopologyAction, TopologyHealth, TopologyInput, TopologyMemory, TopologyPlan } from './types';

/**
 * Decides the next replication steps of one cluster from what was just observed. Pure: no I/O, no clock.
 *
 * Rules, in the order they apply:
 *
 * 1. **One label.** If several pods carry the primary label, all but one (the serving primary with the
 *    highest offset) are unlabelled first.
 * 2. **Election when no pod is labelled** (a fresh cluster, a deleted primary pod, or a controller that died
 *    mid-failover after unlabelling): the primary is derived from observed state alone — a serving pod that
 *    reports role primary with replicas attached, otherwise the serving pod with the highest offset (ties:
 *    already primary, then lowest ordinal; a fresh cluster elects ordinal 0). It is promoted if needed, then
 *    labelled, then every other pod is pointed at it.
 * 3. **A labelled pod that reports role replica** (someone else switched over, or a half-done promotion)
 *    is treated like rule 2; the label moves only after an `unlabelPrimary`.
 * 4. **Healthy labelled primary**: every other serving pod must replicate from its address. A pod reporting
 *    role primary is demoted (fencing: an old primary that comes back becomes a replica before it can be
 *    labelled or take traffic); a replica following another address is repointed; a replica whose link to
 *    the right primary has been down longer than `replicaLinkDownRepairSeconds` is told to reconnect.
 * 5. **Labelled primary not serving** (unreachable, frozen, loading, or its pod gone): a detection timer
 *    starts (kept in `memory`). Only once it has run `failureDetectionMilliseconds` and automatic failover
 *    is on does failover happen: unlabel the old primary, promote the serving replica with the highest
 *    offset (ties: lowest ordinal) — replicas of one primary share one stream, so that replica holds every
 *    write any replica acknowledged, hence every write acknowledged with `WAIT 1` — label it, repoint the
 *    other replicas, emit an Event.
 *    - *Veto*: if a serving replica reports its link to the old primary up with `primaryLastIoSecondsAgo`
 *      ≤ 1, the primary is alive and only the controller is cut off from it; failing over would create a
 *      second primary. Pods run with `repl-ping-replica-period 1`, so a live primary refreshes that figure
 *      every second even without writes, and a frozen one stops refreshing it within two.
 *    - With no serving replica there is nothing to promote: Degraded.
 * 6. **Idempotent**: a healthy, correct topology yields no actions.
 *
 * Known limit: a labelled primary that restarts *empty* within the detection time (no persistence) is seen
 * as a healthy primary and its replicas resync from it; pods must not come back as empty primaries.
 */
export function planTopology(input: TopologyInput): TopologyPlan {
  return new TopologyPlanner(input).plan();
}

class TopologyPlanner {
  private readonly failureDetectionMilliseconds: number;
  private readonly probeIntervalMilliseconds: number;
  private readonly redisPort: number;
  private readonly actions: TopologyAction[] = [];

  constructor(private readonly input: TopologyInput) {
    this.failureDetectionMilliseconds = input.failureDetectionMilliseconds ?? 2000;
    this.probeIntervalMilliseconds = input.probeIntervalMilliseconds ?? 500;
    this.redisPort = input.redisPort ?? 6379;
  }

  plan(): TopologyPlan {
    const labelled = this.keepOneLabel();
    if (labelled === undefined) {
      return this.elect(undefined, 'no pod is labelled primary');
    }
    if (!isServing(labelled)) {
      return this.primaryNotServing(labelled);
    }
    if (labelled.observation.role === 'replica') {
      return this.elect(labelled, `labelled primary ${labelled.name} reports role replica`);
    }
    return this.steady(labelled);
  }

  /** Rule 1: unlabels extra labelled pods and returns the one that keeps the label. */
  private keepOneLabel(): ClusterMember | undefined {
    const labelled = this.input.members.filter((member) => member.labelledPrimary);
    if (labelled.length <= 1) {
      return labelled[0];
    }
    const serving = labelled.filter(isServing);
    const keep =
      mostAdvanced(serving.filter((member) => member.observation.role === 'primary')) ??
      mostAdvanced(serving) ??
      [...labelled].sort((a, b) => a.ordinal - b.ordinal)[0]!;
    for (const member of labelled) {
      if (member !== keep) {
        this.actions.push({ kind: 'unlabelPrimary', pod: member.name });
      }
    }
    this.event('Warning', 'MultiplePrimaryLabels', `${labelled.length} pods were labelled primary; kept ${keep.name}`);
    return keep;
  }

  /** Rules 2 and 3: derive the primary from observed state and make it so. */
  private elect(labelled: ServingMember | undefined, why: string): TopologyPlan {
    const serving = this.serving();
    if (serving.length === 0) {
      return this.result('Degraded', `${why} and no pod is reachable`, null, this.input.memory);
    }
    const primaryWithReplicas = mostAdvanced(
      serving.filter((member) => member.observation.role === 'primary' && member.observation.connectedReplicas.length > 0),
    );
    const chosen = primaryWithReplicas ?? mostAdvanced(serving)!;
    const hasReplicatedData = serving.some(
      (member) => member.observation.role === 'replica' && member.observation.offset > 0,
    );
    if (labelled !== undefined && labelled !== chosen) {
      this.actions.push({ kind: 'unlabelPrimary', pod: labelled.name });
    }
    if (chosen.observation.role !== 'primary') {
      this.actions.push({ kind: 'promote', pod: chosen.name });
    }
    if (labelled !== chosen) {
      this.actions.push({ kind: 'labelPrimary', pod: chosen.name });
    }
    this.alignFollowers(chosen);
    this.applyMinReplicasToWrite();
    const basis = primaryWithReplicas !== undefined ? 'it is primary with replicas attached' : 'it has the highest offset';
    const message =
      hasReplicatedData || labelled !== undefined
        ? `${why}; chose ${chosen.name} (offset ${chosen.observation.offset}) because ${basis}`
        : `bootstrapped ${chosen.name} as primary of a fresh cluster`;
    this.event('Normal', hasReplicatedData ? 'PrimaryDerived' : 'PrimaryElected', message);
    return this.result('Converging', message, chosen.name, {});
  }

  /** Rules 4 and 6. */
  private steady(primary: ServingMember): TopologyPlan {
    const memory = this.input.memory;
    if (memory.suspectPrimary === primary.name) {
      this.event('Normal', 'PrimaryRecovered', `primary ${primary.name} answers again`);
    }
    this.alignFollowers(primary);
    this.applyMinReplicasToWrite();
    if (this.actions.some((action) => action.kind !== 'emitEvent')) {
      return this.result('Converging', `repairing replication towards primary ${primary.name}`, primary.name, {});
    }
    const ready = this.readyReplicas(primary);
    const expected = this.input.desiredReplicas - 1;
    if (ready < expected) {
      return this.result('Degraded', `${ready} of ${expected} replicas replicate from ${primary.name}`, primary.name, {});
    }
    return this.result('Healthy', `primary ${primary.name} with ${ready} replicas in sync`, primary.name, {});
  }

  /** Rule 5. */
  private primaryNotServing(primary: ClusterMember): TopologyPlan {
    const now = this.input.nowMilliseconds;
    const previous = this.input.memory;
    const timerRunning = previous.suspectPrimary === primary.name && previous.primaryUnreachableSince !== undefined;
    const since = timerRunning ? previous.primaryUnreachableSince! : now;
    const memory: TopologyMemory = { suspectPrimary: primary.name, primaryUnreachableSince: since };
    const problem = describeNotServing(primary);
    if (!timerRunning) {
      this.event('Warning', 'PrimaryUnreachable', `primary ${primary.name} ${problem}`);
    }
    const unreachableMilliseconds = now - since;
    // Reasons end up in status conditions: a timestamp keeps them stable between reconciles, where a growing
    // duration would rewrite the status on every probe.
    const sinceText = `since ${new Date(since).toISOString()}`;
    const remaining = this.failureDetectionMilliseconds - unreachableMilliseconds;
    if (remaining > 0) {
      return this.result(
        'PrimarySuspect',
        `primary ${primary.name} ${problem} ${sinceText}; failover after ${this.failureDetectionMilliseconds} ms`,
        primary.name,
        memory,
        Math.min(this.probeIntervalMilliseconds, remaining),
      );
    }
    if (!this.input.automaticFailover) {
      return this.result(
        'Degraded',
        `primary ${primary.name} ${problem} ${sinceText} and automatic failover is off`,
        primary.name,
        memory,
      );
    }
    const replicas = this.serving().filter((member) => member !== primary && member.observation.role === 'replica');
    const witness = replicas.find(
      (replica) =>
        primary.address !== null &&
        replica.observation.primaryHost === primary.address &&
        replica.observation.primaryLinkUp &&
        replica.observation.primaryLastIoSecondsAgo !== undefined &&
        replica.observation.primaryLastIoSecondsAgo <= 1,
    );
    if (witness !== undefined) {
      return this.result(
        'PrimarySuspect',
        `primary ${primary.name} ${problem} but replica ${witness.name} still hears from it: ` +
          'not failing over while only the controller may be cut off',
        primary.name,
        memory,
      );
    }
    const chosen = mostAdvanced(replicas);
    if (chosen === undefined) {
      return this.result(
        'Degraded',
        `primary ${primary.name} ${problem} ${sinceText} and no replica is reachable to promote`,
        primary.name,
        memory,
      );
    }
    this.actions.push(
      { kind: 'unlabelPrimary', pod: primary.name },
      { kind: 'promote', pod: chosen.name },
      { kind: 'labelPrimary', pod: chosen.name },
    );
    this.alignFollowers(chosen);
    this.applyMinReplicasToWrite();
    const message =
      `failed over from ${primary.name} (${problem} for ${unreachableMilliseconds} ms) to ${chosen.name}, ` +
      `the replica with the highest offset (${chosen.observation.offset})`;
    this.event('Warning', 'PrimaryFailedOver', message);
    return this.result('Converging', message, chosen.name, {});
  }

  /** Points every other serving pod at `primary`, demoting any other pod that reports role primary. */
  private alignFollowers(primary: ServingMember): void {
    const linkDownRepairSeconds = this.input.replicaLinkDownRepairSeconds ?? 30;
    for (const member of this.serving()) {
      if (member === primary) {
        continue;
      }
      const observed = member.observation;
      const replicate = (reason: 'demote-stale-primary' | 'wrong-primary' | 'link-down'): void => {
        this.actions.push({
          kind: 'replicateFrom',
          pod: member.name,
          primaryPod: primary.name,
          primaryAddress: primary.address,
          primaryPort: this.redisPort,
          reason,
        });
      };
      if (observed.role === 'primary') {
        replicate('demote-stale-primary');
        this.event('Warning', 'StalePrimaryDemoted', `${member.name} reported role primary; now a replica of ${primary.name}`);
      } else if (observed.primaryHost !== primary.address || observed.primaryPort !== this.redisPort) {
        replicate('wrong-primary');
      } else if (
        !observed.primaryLinkUp &&
        !observed.syncInProgress &&
        (observed.primaryLinkDownSinceSeconds ?? 0) >= linkDownRepairSeconds
      ) {
        replicate('link-down');
      }
    }
  }

  private applyMinReplicasToWrite(): void {
    const value = this.input.minReplicasToWrite ?? 0;
    for (const member of this.serving()) {
      if (member.observation.minReplicasToWrite !== value) {
        this.actions.push({ kind: 'setMinReplicasToWrite', pod: member.name, value });
      }
    }
  }

  private readyReplicas(primary: ServingMember): number {
    return this.serving().filter(
      (member) =>
        member !== primary &&
        member.observation.role === 'replica' &&
        member.observation.primaryHost === primary.address &&
        member.observation.primaryLinkUp,
    ).length;
  }

  private serving(): ServingMember[] {
    return this.input.members.filter(isServing);
  }

  private event(type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.actions.push({ kind: 'emitEvent', type, reason, message });
  }

  private result(
    health: TopologyHealth,
    reason: string,
    primary: string | null,
    memory: TopologyMemory,
    requeueAfterMilliseconds = this.probeIntervalMilliseconds,
  ): TopologyPlan {
    const primaryMember = this.input.members.find((member) => member.name === primary);
    const readyReplicas = primaryMember !== undefined && isServing(primaryMember) ? this.readyReplicas(primaryMember) : 0;
    return { actions: this.actions, memory, health, reason, primary, readyReplicas, requeueAfterMilliseconds };
  }
}

function describeNotServing(member: ClusterMember): string {
  if (member.address === null) {
    return 'has no running pod';
  }
  const observation = member.observation;
  if (observation === null) {
    return 'was not probed';
  }
  if (!observation.reachable) {
    return `is unreachable (${observation.error.message})`;
  }
  return 'is loading its data set';
}
