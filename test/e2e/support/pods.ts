import type { KubeConfig, V1Pod } from '@kubernetes/client-node';
import { k8s } from './client-node';
import { loadKubeConfig } from './cluster-environment';
import { waitFor } from './wait-for';

/** Whether the pod's Ready condition is True. */
export function isPodReady(pod: V1Pod | undefined): boolean {
  return pod?.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True') ?? false;
}

/** Reads a pod, or undefined when it does not exist. */
export async function readPod(namespace: string, name: string, config: KubeConfig = loadKubeConfig()): Promise<V1Pod | undefined> {
  try {
    return await config.makeApiClient(k8s.CoreV1Api).readNamespacedPod({ name, namespace });
  } catch {
    return undefined;
  }
}

/**
 * Waits until the pod satisfies `predicate` (by default: Running and Ready) and resolves it.
 * Pass `notUid` to wait for a *new* incarnation (e.g. after deleting a StatefulSet pod).
 */
export function waitForPod(
  namespace: string,
  name: string,
  { predicate = (pod: V1Pod) => pod.status?.phase === 'Running' && isPodReady(pod), description = 'Running and Ready', timeoutMs = 60_000, notUid, config }:
  { predicate?: (pod: V1Pod) => boolean; description?: string; timeoutMs?: number; notUid?: string; config?: KubeConfig } = {},
): Promise<V1Pod> {
  const kubeConfig = config ?? loadKubeConfig();
  return waitFor(async () => {
    const pod = await readPod(namespace, name, kubeConfig);
    if (!pod || (notUid && pod.metadata?.uid === notUid)) return undefined;
    return predicate(pod) ? pod : undefined;
  }, { description: `pod ${namespace}/${name} ${description}`, timeoutMs });
}
