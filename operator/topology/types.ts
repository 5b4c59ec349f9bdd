import type { RedisObservation } from '../redis/observation';

/** One pod of a RedisCluster as the controller sees it. */
export interface ClusterMember {
  /** Pod name, e.g. `cache-2`. */
  readonly name: string;
  /** StatefulSet ordinal; breaks ties (lowest wins) so decisions are deterministic. */
  readonly ordinal: number;
  /** Pod IP while the pod runs (Terminating included), or null when it has none. */
  readonly address: string | null;
  /** The pod is being deleted: it may still serve, but it is never chosen as a new primary. @default false */
  readonly terminating?: boolean;
  /** The pod carries the primary role label, so the client Service routes writes to it. */
  readonly labelledPrimary: boolean;
  /** The last probe of this pod; null when it could not be probed (no address). */
  readonly observation: RedisObservation | null;
}

/**
 * The durable decision of who is primary, stored in `RedisCluster.status` and written with optimistic concurrency
 * *before* the topology is changed (invariant I5 in docs/failover.md). `epoch` grows by one at every change of
 * primary, so two decisions can always be ordered and a stale one is refused by the apiserver.
 */
export interface PrimaryRecord {
  readonly primary: string;
  readonly epoch: number;
  /** `master_replid` of the primary's history once observed; candidates must share it (invariant I1). */
  readonly replicationId?: string;
}

/**
 * What the planner remembers between two calls. The caller stores it per cluster and passes it back; losing
 * it (a new controller) only restarts the failure-detection timer, never changes a decision otherwise.
 */
export interface TopologyMemory {
  /** The recorded primary the detection timer runs for. */
  readonly suspectPrimary?: string;
  /** When (monotonic milliseconds) that primary was first seen not answering at all. */
  readonly primaryUnreachableSince?: number;
}

/** Everything {@link planTopology} decides from. */
export interface TopologyInput {
  readonly members: readonly ClusterMember[];
  /** `spec.replicas`: pods in the cluster, primary included. */
  readonly desiredReplicas: number;
  /** The durable record read from status (fresh, see I5); undefined for a new cluster. */
  readonly record: PrimaryRecord | undefined;
  /** Whether an unreachable primary may be replaced without a human. */
  readonly automaticFailover: boolean;
  /**
   * A pod a human chose with the force-primary annotation: promoted even when no member is provably current
   * (the escape hatch of invariant I1; the choice is recorded in an Event). @default - none
   */
  readonly forcedPrimary?: string;
  /** How long the recorded primary must stay unreachable before failover. @default 2000 */
  readonly failureDetectionMilliseconds?: number;
  /** `min-replicas-to-write` every pod should have, so an isolated primary refuses writes. @default 0 */
  readonly minReplicasToWrite?: number;
  /** `min-replicas-max-lag` of the pods; bounds how long an isolated old primary may still accept writes (I2). @default 1 */
  readonly minReplicasMaxLagSeconds?: number;
  /** Seconds a replica's link to the right primary may stay down before it is told to reconnect. @default 30 */
  readonly replicaLinkDownRepairSeconds?: number;
  /** Port Redis listens on in every pod. @default 6379 */
  readonly redisPort?: number;
  /** Probe period when nothing is pending; the requeue hint never exceeds it. @default 500 */
  readonly probeIntervalMilliseconds?: number;
  /** A monotonic time in milliseconds (invariant I7: a wall-clock jump must not trigger a failover). */
  readonly nowMilliseconds: number;
  /** What the previous call returned as `memory`; `{}` the first time. */
  readonly memory: TopologyMemory;
}

/** Why a pod is told to replicate from the primary. */
export type ReplicateFromReason =
  /** It reports role primary: a stale or returning old primary, fenced before it can take traffic. */
  | 'demote-stale-primary'
  /** It follows another address (an old primary, a previous pod IP, the boot-time fence). */
  | 'wrong-primary'
  /** It follows the right address but its link has been down too long: reconnect it. */
  | 'link-down';

/**
 * One step for the caller to carry out, in list order. The caller first writes `plan.record` (when set), then
 * runs the actions, stops at the first failure and plans again from fresh observations, which is safe because
 * every plan is derived from observed state and the durable record.
 */
export type TopologyAction =
  | { readonly kind: 'unlabelPrimary'; readonly pod: string }
  /** Cut a pod's replication from whatever it follows without making it writable (REPLICAOF the fence address). */
  | { readonly kind: 'detach'; readonly pod: string }
  | { readonly kind: 'promote'; readonly pod: string }
  | { readonly kind: 'labelPrimary'; readonly pod: string }
  | {
      readonly kind: 'replicateFrom';
      readonly pod: string;
      readonly primaryPod: string;
      readonly primaryAddress: string;
      readonly primaryPort: number;
      readonly reason: ReplicateFromReason;
    }
  /** A planned, fenced change of primary away from a pod that is going away (see the switchover recipe). */
  | { readonly kind: 'switchover'; readonly from: string; readonly to: string; readonly reason: string }
  | { readonly kind: 'setMinReplicasToWrite'; readonly pod: string; readonly value: number }
  | {
      readonly kind: 'emitEvent';
      readonly type: 'Normal' | 'Warning';
      readonly reason: string;
      readonly message: string;
    };

/** Summary for status conditions. */
export type TopologyHealth =
  /** One serving labelled primary, every other pod replicating from it, nothing to do. */
  | 'Healthy'
  /** Actions were planned; observe again shortly. */
  | 'Converging'
  /** The primary is not serving; the detection timer runs (or a veto holds failover back). */
  | 'PrimarySuspect'
  /** Something is wrong that the planner cannot (or may not) fix now: see `reason`. */
  | 'Degraded';

/** The output of {@link planTopology}. */
export interface TopologyPlan {
  readonly actions: readonly TopologyAction[];
  /** A new durable record to write (with a resourceVersion precondition) before any action; undefined: keep it. */
  readonly record: PrimaryRecord | undefined;
  readonly memory: TopologyMemory;
  readonly health: TopologyHealth;
  /** One sentence a human can read in a condition message or log. */
  readonly reason: string;
  /** The pod that is primary once the actions are done, or null when there is none. */
  readonly primary: string | null;
  /** Pods other than the primary that replicate from it with the link up, as observed. */
  readonly readyReplicas: number;
  /** When to observe and plan again. */
  readonly requeueAfterMilliseconds: number;
}
