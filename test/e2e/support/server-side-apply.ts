import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { k8s } from './client-node';
import { parseAllDocuments } from 'yaml';

/** Field manager of every object the e2e tests apply. */
export const E2E_FIELD_MANAGER = 'redkite-e2e';

/** Options of {@link applyObjects}. */
export interface ApplyOptions {
  /** Sets `metadata.namespace` on namespaced objects that have none. @default as written */
  readonly namespace?: string;
  /** @default E2E_FIELD_MANAGER */
  readonly fieldManager?: string;
}

/** Parses a multi-document YAML string into objects (empty documents are skipped). */
export function parseYamlObjects(yamlText: string): KubernetesObject[] {
  return parseAllDocuments(yamlText)
    .map((document) => document.toJS() as KubernetesObject | null)
    .filter((object): object is KubernetesObject => object !== null && typeof object === 'object');
}

/**
 * Server-side applies objects (or multi-document YAML) in order, with force, and returns what the apiserver
 * answered. Rejections surface as the client's ApiException (its `body` holds the Status message).
 */
export async function applyObjects(config: KubeConfig, objects: string | readonly KubernetesObject[], options: ApplyOptions = {}): Promise<KubernetesObject[]> {
  const client = k8s.KubernetesObjectApi.makeApiClient(config);
  const list = typeof objects === 'string' ? parseYamlObjects(objects) : objects;
  const applied: KubernetesObject[] = [];
  for (const object of list) {
    const withNamespace = options.namespace && !object.metadata?.namespace && object.kind !== 'Namespace'
      ? { ...object, metadata: { ...object.metadata, namespace: options.namespace } }
      : object;
    applied.push(await client.patch(withNamespace, undefined, undefined, options.fieldManager ?? E2E_FIELD_MANAGER, true, k8s.PatchStrategy.ServerSideApply));
  }
  return applied;
}
