import * as fs from 'node:fs';
import * as path from 'node:path';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { applyObjects, k8s, parseYamlObjects, waitFor } from '../support';
import { applyCrdVerbatim } from './raw-apply';

const distDir = path.join(__dirname, '..', '..', '..', 'dist');

export function distObjects(file: string): KubernetesObject[] {
  return parseYamlObjects(fs.readFileSync(path.join(distDir, file), 'utf8'));
}

/** Applies the CRD from dist/ (server-side, idempotent across test files) and waits until it is Established. */
export async function installCrd(config: KubeConfig): Promise<void> {
  for (const crd of distObjects('redkite-crd.k8s.yaml')) await applyCrdVerbatim(config, crd);
  const api = config.makeApiClient(k8s.ApiextensionsV1Api);
  await waitFor(
    async () => {
      const crd = await api.readCustomResourceDefinition({ name: 'redisclusters.redis.redkite.io' });
      return crd.status?.conditions?.some((condition) => condition.type === 'Established' && condition.status === 'True');
    },
    { description: 'CRD redisclusters.redis.redkite.io Established', timeoutMs: 30_000 },
  );
}

/** Applies the operator release (namespace, ServiceAccount, RBAC, Deployment) from dist/. */
export async function installOperatorRelease(config: KubeConfig): Promise<KubernetesObject[]> {
  return applyObjects(config, distObjects('redkite-operator.k8s.yaml'));
}
