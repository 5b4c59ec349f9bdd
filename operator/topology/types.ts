import type { RedisObservation } from '../redis/observation';

/** One pod of a RedisCluster as the controller sees it. */
export interface ClusterMember {
  /** Pod name, e.g. `cache-2`. */
  readonly name: string;
  /** StatefulSet ordinal; breaks ties (lowest wins) so decisions are deterministic. */
  readonly ordinal: number;
  /** Pod IP, or null when the pod does not exist or is not running. */
  readonly address: string | null;
  /** The pod carries the primary role label, so the client Service routes writes to it. */
  readonly labelledPrimary: boolean;
  /** The last probe of this pod; null when it could not be probed (no address). */
  readonly observation: RedisObservation | null;
}

/**
 * What the planner remembers between two calls. The caller stores it per cluster and passes it back; losing
 * it (a new controller) only restarts the failure-detection timer, never changes a decision otherwise.
 */
export interface TopologyMemory {
  /** The labelled primary the detection timer runs for. */
  readonly suspectPrimary?: string;
  /** When (epoch milliseconds) that primary was first seen not serving. */
  readonly primaryUnreachableSince?: number;
}

/** Everything {@link planTopology} decides from. */
export interface TopologyInput {
  readonly members: readonly ClusterMember[];
  /** `spec.replicas`: pods in the cluster, primary included. */
  readonly desiredReplicas: number;
  /** Whether an unreachable primary may be replaced without a human. */
  readonly automaticFailover: boolean;
  /** How long the labelled primary must stay unreachable before failover. @default 2000 */
  readonly failureDetectionMilliseconds?: number;
  /** `min-replicas-to-write` every pod should have, so an isolated primary refuses writes. @default 0 */
  readonly minReplicasToWrite?: number;
  /** Seconds a replica's link to the right primary may stay down before it is told to reconnect. @default 30 */
  readonly replicaLinkDownRepairSeconds?: number;
  /** Port Redis listens on in every pod. @default 6379 */
  readonly redisPort?: number;
  /** Probe period when nothing is pending; the requeue hint never exceeds it. @default 500 */
  readonly probeIntervalMilliseconds?: number;
  /** The current time in epoch milliseconds (the planner has no clock). */
  readonly nowMilliseconds: number;
  /** What the previous call returned as `memory`; `{}` the first time. */
  readonly memory: TopologyMemory;
}

/** Why a pod is told to replicate from the primary. */
export type ReplicateFromReason =
  /** It reports role primary: a stale or returning old primary, fenced before it can take traffic. */
  | 'demote-stale-primary'
  /** It follows another address (an old primary, a previous pod IP). */
  | 'wrong-primary'
  /** It follows the right address but its link has been down too long: reconnect it. */
  | 'link-down';

/**
 * One step for the caller to carry out, in list order. The caller stops at the first failure and plans again
 * from fresh observations, which is safe because every plan is derived from observed state.
 */
export type TopologyAction =
  | { readonly kind: 'unlabelPrimary'; readonly pod: string }
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
  /** The labelled primary is not serving; the detection timer runs (or a veto holds failover back). */
  | 'PrimarySuspect'
  /** Something is wrong that the planner cannot (or may not) fix now: see `reason`. */
  | 'Degraded';

/** The output of {@link planTopology}. */
export interface TopologyPlan {
  readonly actions: readonly TopologyAction[];
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
