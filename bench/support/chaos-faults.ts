import type { ControllerIdentity, NodeAgentClient, Partition } from '../../test/e2e/support/node-agent-client';

/** What a fault can act on: the schedule's cluster as it is at the moment of injection. */
export interface FaultContext {
  readonly agent: NodeAgentClient;
  readonly namespace: string;
  /** The harness identity the schedule's controller runs as (partitions from it, its watch stalls). */
  readonly controller: ControllerIdentity;
  /** The pod the RedisCluster's status names primary (if any) and the cluster's other pods, from one read. */
  roles(): Promise<{ readonly primary: string | undefined; readonly replicas: readonly string[] }>;
  /** SIGKILLs the controller (false when it is down already). */
  killController(): Promise<boolean>;
  /** Starts it again, as its Deployment would. */
  startController(): Promise<void>;
}

/** A fault that was injected: on what, and how to heal it when it lasts. */
export interface InjectedFault {
  readonly target: string;
  readonly heal?: () => Promise<void>;
}

/** One kind of fault of the chaos schedules. */
export interface FaultKind {
  readonly name: string;
  /** Lasting faults are healed after their hold time; instant ones (a kill, a deletion) heal by themselves. */
  readonly lasting: boolean;
  /**
   * Picks a target (`choice` in [0, 1) chooses among several) and injects the fault; resolves a reason instead when
   * there is nothing to act on right now (no primary known, controller already down): the report counts it skipped.
   */
  inject(context: FaultContext, choice: number): Promise<InjectedFault | string>;
}

/** What a pod fault does to its pod, resolving what healing needs (a PID, a partition). */
type PodAction<Effect> = (context: FaultContext, pod: string) => Promise<Effect>;
type PodHealing<Effect> = (context: FaultContext, effect: Effect, pod: string) => Promise<unknown>;

/** A fault on the primary pod or on one replica pod; with `heal`, a lasting one. */
function podFault<Effect>(name: string, role: 'primary' | 'replica', act: PodAction<Effect>, heal?: PodHealing<Effect>): FaultKind {
  return {
    name,
    lasting: heal !== undefined,
    inject: async (context, choice) => {
      const { primary, replicas } = await context.roles();
      const candidates = role === 'primary' ? [primary].filter((pod): pod is string => pod !== undefined) : replicas;
      const pod = candidates[Math.floor(choice * candidates.length)];
      if (pod === undefined) return role === 'primary' ? 'no primary known' : 'no replica pod';
      const effect = await act(context, pod);
      return { target: pod, heal: heal && (() => heal(context, effect, pod).then(() => undefined)) };
    },
  };
}

/** The primary cut off (both ways, established connections too) from one replica or from every replica. */
function primaryPartition(name: string, cut: 'one-replica' | 'every-replica'): FaultKind {
  return {
    name,
    lasting: true,
    inject: async (context, choice) => {
      const { primary, replicas } = await context.roles();
      if (primary === undefined) return 'no primary known';
      if (replicas.length === 0) return 'no replica pod';
      const cutOff = cut === 'every-replica' ? replicas : [replicas[Math.floor(choice * replicas.length)]!];
      const partitions: Partition[] = [];
      for (const replica of cutOff) partitions.push(await context.agent.partitionPods(context.namespace, primary, replica));
      return {
        target: `${primary} from ${cutOff.join(', ')}`,
        heal: async () => {
          for (const partition of partitions) await context.agent.heal(partition);
        },
      };
    },
  };
}

/** The controller's watches held (its reads and writes pass): it acts on a stale cache until they resume. */
const watchStall: FaultKind = {
  name: 'stall-controller-watches',
  lasting: true,
  inject: async (context) => {
    await context.agent.stallWatches(context.controller);
    return { target: 'controller', heal: () => context.agent.resumeWatches(context.controller).then(() => undefined) };
  },
};

const controllerKill: FaultKind = {
  name: 'kill-controller',
  lasting: true,
  inject: async (context) => ((await context.killController()) ? { target: 'controller', heal: () => context.startController() } : 'the controller is down already'),
};

const kill: PodAction<number> = (context, pod) => context.agent.kill(context.namespace, pod);
const freeze: PodAction<number> = (context, pod) => context.agent.freeze(context.namespace, pod);
const thaw: PodHealing<number> = (context, _pid, pod) => context.agent.thaw(context.namespace, pod);
const deleteGracefully: PodAction<void> = (context, pod) => context.agent.deletePod(context.namespace, pod);
const loseVolumes: PodAction<unknown> = (context, pod) => context.agent.loseVolumes(context.namespace, pod);
// A pod cut off from the controller alone: clients, the other pods and the sampler still reach it.
const partitionFromController: PodAction<Partition> = (context, pod) => context.agent.partitionFromController(context.namespace, pod, context.controller);
const healPartition: PodHealing<Partition> = (context, partition) => context.agent.heal(partition);

/** Every fault the schedules draw from, one line each. */
export const FAULT_KINDS: readonly FaultKind[] = [
  podFault('kill-primary', 'primary', kill),
  podFault('kill-replica', 'replica', kill),
  podFault('freeze-primary', 'primary', freeze, thaw),
  podFault('freeze-replica', 'replica', freeze, thaw),
  podFault('delete-primary', 'primary', deleteGracefully),
  podFault('delete-replica', 'replica', deleteGracefully),
  podFault('lose-volumes-primary', 'primary', loseVolumes),
  podFault('lose-volumes-replica', 'replica', loseVolumes),
  primaryPartition('partition-primary-from-replica', 'one-replica'),
  primaryPartition('isolate-primary-from-replicas', 'every-replica'),
  podFault('partition-primary-from-controller', 'primary', partitionFromController, healPartition),
  podFault('partition-replica-from-controller', 'replica', partitionFromController, healPartition),
  watchStall,
  controllerKill,
];

/** The fault kinds by name; fails on an unknown one with the known names. */
export function faultKindsNamed(names: readonly string[] | undefined): readonly FaultKind[] {
  if (names === undefined) return FAULT_KINDS;
  return names.map((name) => {
    const kind = FAULT_KINDS.find((candidate) => candidate.name === name);
    if (kind === undefined) throw new Error(`unknown fault kind "${name}"; known: ${FAULT_KINDS.map((known) => known.name).join(', ')}`);
    return kind;
  });
}
