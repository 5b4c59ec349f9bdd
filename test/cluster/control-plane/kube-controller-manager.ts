import type { ClusterPki } from '../pki';
import type { ProcessRegistry } from '../process/process-registry';
import { SupervisedProcess } from '../process/supervised-process';

/** How to start kube-controller-manager. */
export interface KubeControllerManagerOptions {
  readonly binary: string;
  /** Admin kubeconfig: the controllers act with one identity (no per-controller service accounts). */
  readonly kubeconfig: string;
  readonly pki: ClusterPki;
  readonly logFile: string;
  readonly stateDir: string;
  readonly registry: ProcessRegistry;
}

/**
 * The controllers a Redis workload and its operator rely on, and nothing else (two cores are shared):
 * workloads (StatefulSet, Deployment, ReplicaSet, PodDisruptionBudget), garbage collection of owner
 * references, namespace deletion, ServiceAccounts with their tokens and the `kube-root-ca.crt` ConfigMap every
 * projected token volume needs, the PVC/PV protection finalizers (without them deleting a PVC never finishes,
 * nor does deleting its namespace) and aggregated ClusterRoles (admin/edit/view).
 * Persistent volumes are bound by the node agent, not by the binder controller. There is no EndpointSlice
 * controller: the apiserver rejects loopback endpoint addresses ("may not be in the loopback range"), and pod IPs
 * are loopback here; the node agent's Service proxy reads Ready pods directly instead.
 */
export const ENABLED_CONTROLLERS = [
  'statefulset-controller',
  'deployment-controller',
  'replicaset-controller',
  'disruption-controller',
  'garbage-collector-controller',
  'namespace-controller',
  'serviceaccount-controller',
  'serviceaccount-token-controller',
  'root-ca-certificate-publisher-controller',
  'persistentvolumeclaim-protection-controller',
  'persistentvolume-protection-controller',
  'clusterrole-aggregation-controller',
] as const;

/** Starts kube-controller-manager (it needs no readiness wait: it retries against the apiserver by itself). */
export function startKubeControllerManager(options: KubeControllerManagerOptions): Promise<SupervisedProcess> {
  return SupervisedProcess.start({
    name: 'kube-controller-manager',
    command: options.binary,
    args: [
      `--kubeconfig=${options.kubeconfig}`,
      '--leader-elect=false',
      `--controllers=${ENABLED_CONTROLLERS.join(',')}`,
      `--service-account-private-key-file=${options.pki.serviceAccountKey}`,
      `--root-ca-file=${options.pki.caCertificate}`,
      '--use-service-account-credentials=false',
      // The client default (20 requests/s, burst 30) caps pod creation at about 4 StatefulSet pods per second:
      // each costs a pod, a ControllerRevision, StatefulSet and PodDisruptionBudget status writes and an Event.
      // A thousand-cluster benchmark then waits minutes on the controller manager, not on what it measures.
      '--kube-api-qps=200',
      '--kube-api-burst=400',
      // No metrics/health endpoint: nothing scrapes it, and it would need another port.
      '--secure-port=0',
      '--profiling=false',
      '--v=1',
    ],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    logFile: options.logFile,
    stateDir: options.stateDir,
    watchdogGraceSeconds: 5,
    registry: options.registry,
  });
}
