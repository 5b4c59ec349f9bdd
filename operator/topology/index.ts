/** The pure failover and topology planner: observed members in, ordered actions out. */
export { planTopology } from './plan-topology';
export type {
  ClusterMember,
  ReplicateFromReason,
  TopologyAction,
  TopologyHealth,
  TopologyInput,
  TopologyMemory,
  TopologyPlan,
} from './types';
