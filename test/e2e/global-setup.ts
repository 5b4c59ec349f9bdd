/**
 * Starts one local cluster (etcd, kube-apiserver, kube-controller-manager, node agent) for the whole e2e run and
 * exports its endpoints to the test workers (see support/cluster-environment.ts). The cluster runs as a
 * background daemon tied to this process by a pipe, so even a killed test run leaves nothing behind.
 * Set REDKITE_E2E_KUBECONFIG and REDKITE_E2E_AGENT_URL yourself (e.g. from `npm run cluster:up`) to reuse a
 * running cluster instead.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { launchCluster, stopCluster } from '../cluster/cluster-launcher';
import { liveDaemon } from '../cluster/daemon-record';
import { StateDirLayout } from '../cluster/state-dir';
import { E2E_ENVIRONMENT } from './support/cluster-environment';

/** Set by the setup when it started the cluster itself, read by the teardown (same process). */
export const OWNED_STATE_DIR_VARIABLE = 'REDKITE_E2E_OWNED_STATE_DIR';
const CLUSTER_ROOT = resolve(__dirname, '..', '..', '.cluster');

export default async function globalSetup(): Promise<void> {
  if (process.env[E2E_ENVIRONMENT.kubeconfig] && process.env[E2E_ENVIRONMENT.agentUrl]) {
    process.stderr.write(`\n[e2e] reusing the cluster of ${process.env[E2E_ENVIRONMENT.kubeconfig]}\n`);
    return;
  }
  await removeStaleRuns();
  const stateDir = join(CLUSTER_ROOT, `e2e-${process.pid}`);
  const started = Date.now();
  process.stderr.write('\n[e2e] starting the local cluster\n');
  const endpoints = await launchCluster({
    stateDir,
    exitWithParent: true,
    // Tests kill containers on purpose: a 1 s crash-loop back-off base keeps repeated kills fast.
    restartBackoffBaseMilliseconds: 1000,
    restartBackoffMaxMilliseconds: 30_000,
    onProgress: (line) => {
      if (line.includes('[cluster:build]') && !line.includes('cached at')) process.stderr.write(`[e2e] ${line}\n`);
    },
  });
  process.stderr.write(`[e2e] cluster ready in ${((Date.now() - started) / 1000).toFixed(1)} s (logs: ${stateDir}/logs)\n`);
  process.env[E2E_ENVIRONMENT.kubeconfig] = endpoints.kubeconfig;
  process.env[E2E_ENVIRONMENT.agentUrl] = endpoints.agentUrl;
  process.env[E2E_ENVIRONMENT.stateDir] = stateDir;
  process.env.KUBECONFIG = endpoints.kubeconfig;
  process.env[OWNED_STATE_DIR_VARIABLE] = stateDir;
}

// State directories of earlier runs are kept for their logs until the next run; a run that was killed may also
// have left processes, which stopCluster sweeps.
async function removeStaleRuns(): Promise<void> {
  if (!existsSync(CLUSTER_ROOT)) return;
  for (const entry of readdirSync(CLUSTER_ROOT)) {
    const match = /^e2e-(\d+)$/.exec(entry);
    if (!match) continue;
    const stateDir = join(CLUSTER_ROOT, entry);
    const ownerAlive = isAlive(Number(match[1]));
    if (ownerAlive || liveDaemon(new StateDirLayout(stateDir))) continue;
    await stopCluster(stateDir, 5000);
    rmSync(stateDir, { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
