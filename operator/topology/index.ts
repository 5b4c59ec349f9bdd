/** The pure failover and topology planner: observed members in, ordered actions out. */
export { planTopology } from './plan-topology';
export { electProvablyCurrent, isServing, type ElectionOutcome } from './member-ranking';
export type {
  ClusterMember,
  PrimaryRecord,
  ReplicateFromReason,
  TopologyAction,
  TopologyHealth,
  TopologyInput,
  TopologyMemory,
  TopologyPlan,
} from './types';
