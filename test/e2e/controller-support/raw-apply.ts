import * as https from 'node:https';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';

/**
 * Server-side apply of a CustomResourceDefinition with the bytes as written. client-node's object API
 * re-serializes through its typed models, which silently drops schema keys such as `default` and
 * `x-kubernetes-validations`: exactly what the admission tests must exercise.
 */
export async function applyCrdVerbatim(config: KubeConfig, crd: KubernetesObject): Promise<void> {
  const server = new URL(config.getCurrentCluster()!.server);
  const options: https.RequestOptions = {
    method: 'PATCH',
    hostname: server.hostname,
    port: server.port,
    path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata!.name}?fieldManager=redkite-e2e&force=true`,
    headers: { 'Content-Type': 'application/apply-patch+yaml', Accept: 'application/json' },
  };
  await config.applyToHTTPSOptions(options);
  await new Promise<void>((resolve, reject) => {
    const request = https.request(options, (response) => {
      let body = '';
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => ((response.statusCode ?? 500) < 300 ? resolve() : reject(new Error(`applying the CRD failed: ${response.statusCode} ${body}`))));
    });
    request.on('error', reject);
    request.end(JSON.stringify(crd));
  });
}
