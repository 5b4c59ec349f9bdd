import type { V1Pod, V1PodCondition } from '@kubernetes/client-node';
import type { ContainerRunner } from './container-runner';

/** What the pod's status is computed from. */
export interface PodStatusInputs {
  readonly pod: V1Pod;
  readonly podIp: string | undefined;
  readonly hostIp: string;
  readonly startTime: Date;
  /** Volumes materialized ("sandbox" ready). */
  readonly volumesReady: boolean;
  readonly initContainers: readonly ContainerRunner[];
  readonly containers: readonly ContainerRunner[];
  /** All init containers completed. */
  readonly initialized: boolean;
  /** An init container failed for good (restartPolicy Never). */
  readonly initFailed: boolean;
}

/** The kubelet's phase rules (pkg/kubelet/kubelet_pods.go getPhase), for the states this agent produces. */
export function podPhase(inputs: PodStatusInputs): 'Pending' | 'Running' | 'Succeeded' | 'Failed' {
  if (inputs.initFailed) return 'Failed';
  if (!inputs.initialized) return 'Pending';
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const container of inputs.containers) {
    if (container.isRunning) running++;
    else if (container.isWaiting) {
      if (container.hasTerminatedBefore) stopped++;
      else waiting++;
    } else {
      stopped++;
      if (container.terminatedExitCode === 0) succeeded++;
    }
  }
  if (waiting > 0) return 'Pending';
  if (running > 0) return 'Running';
  const restartPolicy = inputs.pod.spec?.restartPolicy ?? 'Always';
  if (restartPolicy === 'Always') return 'Running';
  if (stopped === succeeded) return 'Succeeded';
  // OnFailure restarts failed containers: still running as far as the pod is concerned.
  return restartPolicy === 'OnFailure' ? 'Running' : 'Failed';
}

/**
 * Builds `pod.status` from the containers' real state. `previous` keeps condition transition times stable
 * when a condition did not change.
 */
export function buildPodStatus(inputs: PodStatusInputs, previous: readonly V1PodCondition[] | undefined): Record<string, unknown> {
  const containersReady = inputs.containers.length > 0 && inputs.containers.every((container) => container.ready);
  const gates = inputs.pod.spec?.readinessGates ?? [];
  const existing = inputs.pod.status?.conditions ?? [];
  const gatesPass = gates.every((gate) => existing.some((condition) => condition.type === gate.conditionType && condition.status === 'True'));
  const now = new Date().toISOString();
  const condition = (type: string, status: boolean, reason?: string): Record<string, unknown> => {
    const statusText = status ? 'True' : 'False';
    const before = previous?.find((entry) => entry.type === type);
    const lastTransitionTime = before && before.status === statusText ? before.lastTransitionTime : now;
    return { type, status: statusText, lastProbeTime: null, lastTransitionTime, ...(reason && !status ? { reason } : {}) };
  };
  // Conditions other components own (readiness gates, DisruptionTarget, ...) are kept as they are.
  const ownTypes = new Set(['PodScheduled', 'PodReadyToStartContainers', 'Initialized', 'ContainersReady', 'Ready']);
  const foreign = existing.filter((entry) => !ownTypes.has(entry.type));
  return {
    phase: podPhase(inputs),
    conditions: [
      condition('PodReadyToStartContainers', inputs.volumesReady),
      condition('Initialized', inputs.initialized, 'ContainersNotInitialized'),
      condition('Ready', containersReady && gatesPass, gatesPass ? 'ContainersNotReady' : 'ReadinessGatesNotReady'),
      condition('ContainersReady', containersReady, 'ContainersNotReady'),
      condition('PodScheduled', true),
      ...foreign,
    ],
    hostIP: inputs.hostIp,
    hostIPs: [{ ip: inputs.hostIp }],
    ...(inputs.podIp ? { podIP: inputs.podIp, podIPs: [{ ip: inputs.podIp }] } : {}),
    startTime: inputs.startTime.toISOString(),
    initContainerStatuses: inputs.initContainers.map((container) => container.status()),
    containerStatuses: inputs.containers.map((container) => container.status()),
  };
}
