import { KubernetesClient } from '../../../../operator/runtime/client/kubernetes-client';
import { loadKubeConfig } from '../../../../operator/runtime/client/kube-config';
import { KubernetesRestClient } from '../../../../operator/runtime/client/rest-client';
import { kubeconfigPath } from '../../../e2e/support';

/** The runtime's own client for the e2e cluster (cluster admin). Close it with `client.rest.close()`. */
export function e2eClient(): KubernetesClient {
  return new KubernetesClient(new KubernetesRestClient(loadKubeConfig(kubeconfigPath())));
}
