import { electProvablyCurrent, isAliveButNotServing, isServing, type ServingMember } from './member-ranking';
import type { ClusterMember, PrimaryRecord, TopologyAction, TopologyHealth, TopologyInput, TopologyMemory, TopologyPlan } from './types';

/**
 * Decides the next replication steps of one cluster from what was just observed and the durable record of who is
 * primary. Pure: no I/O, no clock. The design, its invariants (I1–I7) and the failure cases it handles are in
 * docs/failover.md; keep the two in step.
 *
 * Rules, in the order they apply:
 *
 * 1. **The record names the primary**, not the labels. Without a record, a labelled pod is adopted (clusters made
 *    by an older controller); without either, a cluster is bootstrapped once every pod serves: ordinal 0 when no pod
 *    holds data, else the provably current member (I1).
 * 2. **One label**: every labelled pod other than the recorded primary is unlabelled first.
 * 3. **Recorded primary serving as primary**: every other serving pod replicates from its address (a pod reporting
 *    role primary is demoted: fencing a returning old primary); links down too long are reconnected; the learned
 *    replication ID is recorded. A Terminating primary that still runs is switched over (fenced, planned).
 * 4. **Recorded primary restarted as a (fenced) replica**: it holds every write its epoch acknowledged (each reached
 *    it before the reply), so it is promoted again — unless it came back empty (lost volume), which counts as down.
 *    If it follows a live primary (an unfinished switchover), that primary is recorded instead.
 * 5. **Recorded primary alive but refusing** (`-WRONGPASS`, `-NOAUTH`, `-BUSY`, `-LOADING`): no timer (I4); wait.
 * 6. **Recorded primary not answering**: a detection timer (monotonic, I7) runs `failureDetectionMilliseconds`, and,
 *    with `min-replicas-to-write`, at least until the old primary refuses writes by itself (I2). Then, if automatic
 *    failover is on and no replica still hears from the primary (veto), the provably current member is chosen (I1)
 *    or the cluster waits naming what for; a new record (epoch + 1) is written first (I5), every other member is
 *    detached from the old primary (I2), the chosen one promoted, the others repointed, the label moved (I3).
 * 7. **Idempotent**: a healthy, correct topology yields no actions and no record.
 */
export function planTopology(input: TopologyInput): TopologyPlan {
  return new TopologyPlanner(input).plan();
}

const DEFAULT_MIN_REPLICAS_MAX_LAG_SECONDS = 1;

class TopologyPlanner {
  private readonly failureDetectionMilliseconds: number;
  private readonly probeIntervalMilliseconds: number;
  private readonly redisPort: number;
  private readonly actions: TopologyAction[] = [];
  private record: PrimaryRecord | undefined;

  constructor(private readonly input: TopologyInput) {
    this.failureDetectionMilliseconds = input.failureDetectionMilliseconds ?? 2000;
    this.probeIntervalMilliseconds = input.probeIntervalMilliseconds ?? 500;
    this.redisPort = input.redisPort ?? 6379;
  }

  plan(): TopologyPlan {
    const recorded = this.input.record ?? this.adoptLabelledPrimary();
    if (recorded === undefined) return this.bootstrap();
    if (this.input.record === undefined) this.record = recorded;
    const primary = this.member(recorded.primary);
    this.unlabelAllBut(recorded.primary);
    if (primary === undefined || !isServing(primary)) {
      return isAliveButNotServing(primary ?? this.absent(recorded.primary))
        ? this.primaryAliveButRefusing(primary!)
        : this.primaryNotServing(recorded, primary);
    }
    if (primary.observation.role === 'primary') {
      if (primary.terminating) return this.switchAwayFrom(recorded, primary);
      return this.steady(recorded, primary);
    }
    return this.primaryIsReplica(recorded, primary);
  }

  /** Rule 1: a cluster made before the record existed keeps the primary it has. */
  private adoptLabelledPrimary(): PrimaryRecord | undefined {
    const labelled = this.input.members.filter((member) => member.labelledPrimary);
    const keep = labelled.find((member) => isServing(member) && member.observation.role === 'primary') ?? [...labelled].sort((a, b) => a.ordinal - b.ordinal)[0];
    return keep === undefined ? undefined : { primary: keep.name, epoch: 1 };
  }

  /** Rule 1: the first primary of a cluster. */
  private bootstrap(): TopologyPlan {
    const notServing = this.input.members.filter((member) => !isServing(member));
    const missing = this.input.desiredReplicas - this.input.members.length;
    if (missing > 0 || notServing.length > 0) {
      const waiting = [...notServing.map((member) => member.name), ...(missing > 0 ? [`${missing} pods not created yet`] : [])].join(', ');
      return this.result('Degraded', `waiting for ${waiting} to serve before choosing the first primary`, null, {});
    }
    const serving = this.serving();
    const holdingData = serving.filter((member) => member.observation.position.kind !== 'empty');
    let chosen: ServingMember | undefined;
    let basis: string;
    if (this.forced() !== undefined) {
      chosen = this.forced()!;
      basis = 'a human chose it with the force-primary annotation';
    } else if (holdingData.length === 0) {
      chosen = [...serving].sort((a, b) => a.ordinal - b.ordinal).find((member) => this.mayLead(member));
      basis = 'no pod holds data (a new cluster)';
    } else if (holdingData.length === 1) {
      chosen = this.mayLead(holdingData[0]!) ? holdingData[0] : undefined;
      basis = 'it is the only pod holding data';
    } else {
      const election = electProvablyCurrent(this.input.members, undefined, undefined, (member) => this.mayLead(member));
      if (election.kind === 'wait') return this.result('Degraded', `no recorded primary and ${election.reason}`, null, {});
      chosen = election.member;
      basis = election.basis;
    }
    if (chosen === undefined) return this.result('Degraded', 'no pod may become the first primary', null, {});
    this.record = { primary: chosen.name, epoch: 1 };
    return this.promoteAndAlign(chosen, 'PrimaryElected', `chose ${chosen.name} as the first primary because ${basis}`);
  }

  /** Rule 3. */
  private steady(recorded: PrimaryRecord, primary: ServingMember): TopologyPlan {
    const memory = this.input.memory;
    if (memory.suspectPrimary === primary.name) {
      this.event('Normal', 'PrimaryRecovered', `primary ${primary.name} answers again`);
    }
    const replicationId = primary.observation.position.kind === 'known' ? primary.observation.position.replicationId : undefined;
    if (replicationId !== undefined && recorded.replicationId !== replicationId) {
      this.record = { ...(this.record ?? recorded), replicationId };
    }
    if (!primary.labelledPrimary) this.actions.push({ kind: 'labelPrimary', pod: primary.name });
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

  /** Rule 4. */
  private primaryIsReplica(recorded: PrimaryRecord, primary: ServingMember): TopologyPlan {
    const followed = this.serving().find(
      (member) => member !== primary && member.address === primary.observation.primaryHost && member.observation.role === 'primary',
    );
    if (followed !== undefined && primary.observation.primaryLinkUp) {
      // An unfinished switchover (or someone else's): the pod being followed holds the stream; record it.
      this.record = { primary: followed.name, epoch: recorded.epoch + 1 };
      this.event('Normal', 'PrimaryRecorded', `${primary.name} replicates from ${followed.name}, which serves as primary: recorded ${followed.name}`);
      return this.steady(this.record, followed);
    }
    const position = primary.observation.position;
    // Empty in the recorded history (chosen while nothing was written, not promoted yet) is current; empty in a
    // history of its own means it came back without its data.
    if (position.kind === 'empty' && (recorded.replicationId === undefined || position.replicationId !== recorded.replicationId)) {
      return this.primaryNotServing(recorded, primary, 'restarted without its data (empty data set)');
    }
    if (primary.terminating) {
      return this.primaryNotServing(recorded, primary, 'is Terminating');
    }
    return this.promoteAndAlign(
      primary,
      'PrimaryRestarted',
      `primary ${primary.name} restarted with its own data; promoted again: it holds every write acknowledged in epoch ${recorded.epoch}`,
    );
  }

  /** Rule 5. */
  private primaryAliveButRefusing(primary: ClusterMember): TopologyPlan {
    const observation = primary.observation;
    const why = observation?.reachable === false ? observation.error.message : 'it is loading its data set';
    return this.result('Degraded', `primary ${primary.name} is alive but not usable (${why}): not failing over a live primary`, primary.name, {});
  }

  /** Rule 6. */
  private primaryNotServing(recorded: PrimaryRecord, primary: ClusterMember | undefined, problemOverride?: string): TopologyPlan {
    const name = recorded.primary;
    const now = this.input.nowMilliseconds;
    const previous = this.input.memory;
    const timerRunning = previous.suspectPrimary === name && previous.primaryUnreachableSince !== undefined;
    const since = timerRunning ? previous.primaryUnreachableSince! : now;
    const memory: TopologyMemory = { suspectPrimary: name, primaryUnreachableSince: since };
    const problem = problemOverride ?? describeNotServing(primary);
    if (!timerRunning) this.event('Warning', 'PrimaryUnreachable', `primary ${name} ${problem}`);
    const unreachableMilliseconds = now - since;
    const waitMilliseconds = Math.max(this.failureDetectionMilliseconds, this.fenceMilliseconds());
    const remaining = waitMilliseconds - unreachableMilliseconds;
    if (remaining > 0) {
      return this.result('PrimarySuspect', `primary ${name} ${problem}; failover after ${waitMilliseconds} ms`, name, memory, Math.min(this.probeIntervalMilliseconds, remaining));
    }
    if (!this.input.automaticFailover && this.forced() === undefined) {
      return this.result('Degraded', `primary ${name} ${problem} and automatic failover is off`, name, memory);
    }
    const witness = this.serving().find(
      (replica) =>
        replica.name !== name &&
        primary?.address != null &&
        replica.observation.role === 'replica' &&
        replica.observation.primaryHost === primary.address &&
        replica.observation.primaryLinkUp &&
        replica.observation.primaryLastIoSecondsAgo !== undefined &&
        replica.observation.primaryLastIoSecondsAgo <= 1,
    );
    if (witness !== undefined) {
      return this.result('PrimarySuspect', `primary ${name} ${problem} but replica ${witness.name} still hears from it: not failing over while only the controller may be cut off`, name, memory);
    }
    const forced = this.forced();
    const election = forced
      ? { kind: 'chosen' as const, member: forced, basis: 'a human chose it with the force-primary annotation' }
      : electProvablyCurrent(this.input.members, name, recorded, (member) => this.mayLead(member));
    if (election.kind === 'wait') {
      return this.result('Degraded', `primary ${name} ${problem}; not failing over: ${election.reason}`, name, memory);
    }
    const chosen = election.member;
    // The history stays recorded until the new primary's own replication ID is learned: a pass that finds the chosen
    // member not promoted yet (this one stopped half way) still recognises it as current, even when it is empty.
    this.record = { primary: chosen.name, epoch: recorded.epoch + 1, ...(recorded.replicationId ? { replicationId: recorded.replicationId } : {}) };
    if (primary?.labelledPrimary) this.actions.push({ kind: 'unlabelPrimary', pod: name });
    // I2: nobody may still replicate from the old primary once another member is writable.
    for (const member of this.serving()) {
      if (member !== chosen && member.name !== name && member.observation.role === 'replica') this.actions.push({ kind: 'detach', pod: member.name });
    }
    const message = `failed over from ${name} (${problem} for ${unreachableMilliseconds} ms) to ${chosen.name} in epoch ${this.record.epoch}: ${election.basis}`;
    if (forced) this.event('Warning', 'ForcedPrimary', `promoting ${chosen.name} because the force-primary annotation names it; acknowledged writes may be lost`);
    return this.promoteAndAlign(chosen, 'PrimaryFailedOver', message, 'Warning');
  }

  /** Rule 3, Terminating primary: a planned switchover to the provably current replica, before the pod stops. */
  private switchAwayFrom(recorded: PrimaryRecord, primary: ServingMember): TopologyPlan {
    const election = electProvablyCurrent(this.input.members, primary.name, recorded, (member) => this.mayLead(member) && this.followsLinked(member, primary));
    if (election.kind === 'wait') {
      return this.result('Degraded', `primary ${primary.name} is Terminating; no switchover yet: ${election.reason}`, primary.name, {});
    }
    this.record = { primary: election.member.name, epoch: recorded.epoch + 1, ...(recorded.replicationId ? { replicationId: recorded.replicationId } : {}) };
    this.actions.push({ kind: 'switchover', from: primary.name, to: election.member.name, reason: `primary ${primary.name} is Terminating` });
    return this.result('Converging', `switching over from Terminating ${primary.name} to ${election.member.name}`, election.member.name, {});
  }

  private promoteAndAlign(chosen: ServingMember, reason: string, message: string, type: 'Normal' | 'Warning' = 'Normal'): TopologyPlan {
    if (chosen.observation.role !== 'primary') {
      // I2 on every path that promotes: nobody may still follow another primary once this one is writable.
      const detached = new Set(this.actions.flatMap((action) => (action.kind === 'detach' ? [action.pod] : [])));
      for (const member of this.serving()) {
        const followsSomeoneLive = member.observation.role === 'replica' && member.observation.primaryLinkUp;
        if (member !== chosen && followsSomeoneLive && !detached.has(member.name)) this.actions.push({ kind: 'detach', pod: member.name });
      }
      this.actions.push({ kind: 'promote', pod: chosen.name });
    }
    if (!chosen.labelledPrimary) this.actions.push({ kind: 'labelPrimary', pod: chosen.name });
    this.alignFollowers(chosen, true);
    this.applyMinReplicasToWrite();
    this.event(type, reason, message);
    return this.result('Converging', message, chosen.name, {});
  }

  /** Points every other serving pod at `primary`, demoting any other pod that reports role primary. */
  private alignFollowers(primary: ServingMember, primaryChanging = false): void {
    const linkDownRepairSeconds = this.input.replicaLinkDownRepairSeconds ?? 30;
    for (const member of this.serving()) {
      if (member === primary || member.terminating) continue;
      const observed = member.observation;
      const replicate = (reason: 'demote-stale-primary' | 'wrong-primary' | 'link-down'): void => {
        this.actions.push({ kind: 'replicateFrom', pod: member.name, primaryPod: primary.name, primaryAddress: primary.address, primaryPort: this.redisPort, reason });
      };
      if (observed.role === 'primary') {
        replicate('demote-stale-primary');
        this.event('Warning', 'StalePrimaryDemoted', `${member.name} reported role primary; now a replica of ${primary.name}`);
      } else if (primaryChanging || observed.primaryHost !== primary.address || observed.primaryPort !== this.redisPort) {
        replicate('wrong-primary');
      } else if (!observed.primaryLinkUp && !observed.syncInProgress && (observed.primaryLinkDownSinceSeconds ?? 0) >= linkDownRepairSeconds) {
        replicate('link-down');
      }
    }
  }

  private applyMinReplicasToWrite(): void {
    const value = this.input.minReplicasToWrite ?? 0;
    for (const member of this.serving()) {
      if (member.observation.minReplicasToWrite !== value) this.actions.push({ kind: 'setMinReplicasToWrite', pod: member.name, value });
    }
  }

  private unlabelAllBut(primary: string): void {
    const extra = this.input.members.filter((member) => member.labelledPrimary && member.name !== primary);
    for (const member of extra) this.actions.push({ kind: 'unlabelPrimary', pod: member.name });
    if (extra.length > 0) this.event('Warning', 'MultiplePrimaryLabels', `unlabelled ${extra.map((member) => member.name).join(', ')}: the recorded primary is ${primary}`);
  }

  /**
   * With `min-replicas-to-write`, an old primary cut off from its replicas keeps accepting writes until their
   * acknowledgements are older than `min-replicas-max-lag` (whole seconds, refreshed once a second): no member is
   * promoted before that (I2, I3).
   */
  private fenceMilliseconds(): number {
    if ((this.input.minReplicasToWrite ?? 0) === 0) return 0;
    return ((this.input.minReplicasMaxLagSeconds ?? DEFAULT_MIN_REPLICAS_MAX_LAG_SECONDS) + 2) * 1000;
  }

  /** Who may become primary: not Terminating and not being scaled away. */
  private mayLead(member: ClusterMember): boolean {
    return !member.terminating && member.ordinal < this.input.desiredReplicas;
  }

  private followsLinked(member: ClusterMember, primary: ServingMember): boolean {
    return isServing(member) && member.observation.role === 'replica' && member.observation.primaryHost === primary.address && member.observation.primaryLinkUp;
  }

  private forced(): ServingMember | undefined {
    const name = this.input.forcedPrimary;
    const member = name === undefined ? undefined : this.member(name);
    return member !== undefined && isServing(member) && !member.terminating ? member : undefined;
  }

  private readyReplicas(primary: ServingMember): number {
    return this.serving().filter((member) => member !== primary && this.followsLinked(member, primary)).length;
  }

  private member(name: string): ClusterMember | undefined {
    return this.input.members.find((member) => member.name === name);
  }

  private absent(name: string): ClusterMember {
    return { name, ordinal: -1, address: null, labelledPrimary: false, observation: null };
  }

  private serving(): ServingMember[] {
    return this.input.members.filter(isServing);
  }

  private event(type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.actions.push({ kind: 'emitEvent', type, reason, message });
  }

  private result(health: TopologyHealth, reason: string, primary: string | null, memory: TopologyMemory, requeueAfterMilliseconds = this.probeIntervalMilliseconds): TopologyPlan {
    const primaryMember = primary === null ? undefined : this.member(primary);
    const readyReplicas = primaryMember !== undefined && isServing(primaryMember) ? this.readyReplicas(primaryMember) : 0;
    return { actions: this.actions, record: this.record, memory, health, reason, primary, readyReplicas, requeueAfterMilliseconds };
  }
}

function describeNotServing(member: ClusterMember | undefined): string {
  if (member === undefined) return 'has no pod';
  if (member.address === null) return 'has no running pod';
  const observation = member.observation;
  if (observation === null) return 'was not probed';
  if (!observation.reachable) return `is unreachable (${observation.error.message})`;
  return 'is loading its data set';
}
