import type { V1Pod } from '@kubernetes/client-node';
import { KubeApiError, type KubeRestClient } from '../kube/kube-rest-client';

/**
 * Plays the scheduler for a one-node cluster: binds every pending pod to this node through the `binding`
 * subresource (which also sets PodScheduled=True). Affinity, taints and resources are not evaluated: there is
 * nowhere else to go. Pods naming another `schedulerName` are left alone.
 */
export class PodBinder {
  private readonly binding = new Set<string>();

  constructor(private readonly client: KubeRestClient, private readonly nodeName: string, private readonly warn: (message: string, error?: unknown) => void) {}

  /** Whether this pod waits for a scheduler we stand in for. */
  wantsBinding(pod: V1Pod): boolean {
    const schedulerName = pod.spec?.schedulerName ?? 'default-scheduler';
    return !pod.spec?.nodeName && !pod.metadata?.deletionTimestamp && schedulerName === 'default-scheduler';
  }

  bind(pod: V1Pod): void {
    const uid = pod.metadata!.uid!;
    if (this.binding.has(uid)) return;
    this.binding.add(uid);
    const { namespace, name } = pod.metadata!;
    this.client
      .post(`/api/v1/namespaces/${namespace}/pods/${name}/binding`, {
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { name, namespace, uid },
        target: { apiVersion: 'v1', kind: 'Node', name: this.nodeName },
      })
      .catch((error: unknown) => {
        // 409: already bound (by us, a moment ago); 404: the pod is gone.
        if (!(error instanceof KubeApiError && (error.statusCode === 409 || error.statusCode === 404))) this.warn(`binding ${namespace}/${name} failed`, error);
      })
      .finally(() => this.binding.delete(uid));
  }
}
