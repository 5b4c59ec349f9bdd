/**
 * Helpers for end-to-end tests against the local cluster started by the e2e global setup.
 * Import from 'test/e2e/support' (relative path `./support` from a test file).
 */
export { k8s } from './client-node';
export { E2E_ENVIRONMENT, E2E_TEST_TIMEOUT_MILLISECONDS, kubeconfigPath, loadKubeConfig, requireE2eVariable } from './cluster-environment';
export { waitFor, WaitTimeoutError, type WaitForOptions } from './wait-for';
export { createTestNamespace, deleteTestNamespace, useTestNamespace, type TestNamespaceOptions } from './test-namespace';
export { applyObjects, parseYamlObjects, E2E_FIELD_MANAGER, type ApplyOptions } from './server-side-apply';
export { chaos, nodeAgent, processOf, NodeAgentClient, NodeAgentError, type PodProcess, type ProxiedService } from './node-agent-client';
export { isPodReady, readPod, waitForPod } from './pods';
export { pingRedis, withRedis } from './redis';
