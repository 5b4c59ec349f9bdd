import type { KubeConfig } from '@kubernetes/client-node';
import { k8s } from './client-node';

/** Environment variables the e2e global setup exports to every test worker. */
export const E2E_ENVIRONMENT = {
  /** Absolute path of the admin kubeconfig of the test cluster. */
  kubeconfig: 'REDKITE_E2E_KUBECONFIG',
  /** Base URL of the node agent's control API (chaos, pod processes, control-plane faults). */
  agentUrl: 'REDKITE_E2E_AGENT_URL',
  /** State directory of the test cluster (logs under `<dir>/logs`). */
  stateDir: 'REDKITE_E2E_STATE_DIR',
} as const;

/** A generous per-test timeout for tests that wait on pods (pass to `jest.setTimeout`). */
export const E2E_TEST_TIMEOUT_MILLISECONDS = 120_000;

/** Reads a variable the global setup must have exported; throws a readable error when run outside the e2e project. */
export function requireE2eVariable(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run end-to-end tests with \`npm run test:e2e\` (its global setup starts the cluster)`);
  return value;
}

/** Path of the test cluster's admin kubeconfig. */
export function kubeconfigPath(): string {
  return requireE2eVariable(E2E_ENVIRONMENT.kubeconfig);
}

/** A KubeConfig for the test cluster (cluster admin). */
export function loadKubeConfig(): KubeConfig {
  const config = new k8s.KubeConfig();
  config.loadFromFile(kubeconfigPath());
  return config;
}
