import { randomBytes } from 'node:crypto';
import type { KubeConfig } from '@kubernetes/client-node';
import { k8s } from './client-node';
import { loadKubeConfig } from './cluster-environment';
import { waitFor } from './wait-for';

/** Options of {@link createTestNamespace}. */
export interface TestNamespaceOptions {
  /** Labels of the namespace, e.g. `{ 'pod-security.kubernetes.io/enforce': 'restricted' }`. @default none */
  readonly labels?: Readonly<Record<string, string>>;
  /** @default the test cluster's admin config */
  readonly config?: KubeConfig;
}

/**
 * Creates a namespace named `<prefix>-<random>` and waits until pods can be created in it (its `default`
 * ServiceAccount and `kube-root-ca.crt` ConfigMap exist). Resolves the name.
 */
export async function createTestNamespace(prefix: string, options: TestNamespaceOptions = {}): Promise<string> {
  const core = (options.config ?? loadKubeConfig()).makeApiClient(k8s.CoreV1Api);
  const name = `${prefix}-${randomBytes(3).toString('hex')}`.toLowerCase().slice(0, 63);
  await core.createNamespace({ body: { metadata: { name, labels: { 'redkite.dev/e2e': 'true', ...options.labels } } } });
  await waitFor(async () => (await core.readNamespacedServiceAccount({ name: 'default', namespace: name })) && (await core.readNamespacedConfigMap({ name: 'kube-root-ca.crt', namespace: name })), {
    description: `namespace ${name} ready for pods (default ServiceAccount, kube-root-ca.crt)`,
    timeoutMs: 30_000,
  });
  return name;
}

/** Deletes a namespace; with `wait`, resolves once it is gone (its pods stopped, its volumes released). */
export async function deleteTestNamespace(name: string, { wait = false, config }: { wait?: boolean; config?: KubeConfig } = {}): Promise<void> {
  const core = (config ?? loadKubeConfig()).makeApiClient(k8s.CoreV1Api);
  await core.deleteNamespace({ name }).catch(() => undefined);
  if (!wait) return;
  await waitFor(async () => {
    try {
      await core.readNamespace({ name });
      return false;
    } catch {
      return true;
    }
  }, { description: `namespace ${name} deleted`, timeoutMs: 90_000 });
}

/**
 * Registers `beforeAll`/`afterAll` hooks that create a fresh namespace for the test file and delete it
 * afterwards. Read `.name` inside tests (it is set once `beforeAll` ran).
 */
export function useTestNamespace(prefix: string, options: TestNamespaceOptions = {}): { readonly name: string } {
  let name: string | undefined;
  beforeAll(async () => {
    name = await createTestNamespace(prefix, options);
  });
  afterAll(async () => {
    if (name) await deleteTestNamespace(name, { config: options.config });
  });
  return {
    get name(): string {
      if (!name) throw new Error('the test namespace exists only inside tests (after beforeAll)');
      return name;
    },
  };
}
