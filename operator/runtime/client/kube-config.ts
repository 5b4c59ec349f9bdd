import { KubeConfig } from '@kubernetes/client-node';

/**
 * Loads a kubeconfig: from `path` when given, otherwise client-node's defaults (`KUBECONFIG`, `~/.kube/config`, or
 * the in-cluster service account).
 */
export function loadKubeConfig(path?: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  if (path) kubeConfig.loadFromFile(path);
  else kubeConfig.loadFromDefault();
  return kubeConfig;
}
