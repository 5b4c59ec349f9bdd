/**
 * Convergence benchmark of the RedisCluster controller (`npm run bench:convergence`), on its own fresh local cluster
 * (started and stopped here), beside a same-run baseline of a plain client applying the same objects.
 *
 * For each size N (BENCH_CONVERGENCE_SIZES, default "100,1000"):
 * 1. plain client: server-side applies the workload construct's manifests plus a password Secret per cluster, and
 *    waits for the pods;
 * 2. redkite: `redkite run` (the release's ServiceAccount and RBAC) behind a counting HTTPS proxy; N RedisClusters are
 *    created; time until every cluster's children exist with status.observedGeneration, and until every cluster is
 *    Ready; the controller's writes during convergence and during a steady-state window; its RSS.
 *
 * Pods are real redis-server processes up to BENCH_CONVERGENCE_REAL_POD_LIMIT pods (default 100); larger sizes
 * fall back to pods without a process (see convergence-workloads.ts) and say so.
 *
 * Environment: BENCH_CONVERGENCE_SIZES, BENCH_CONVERGENCE_REAL_POD_LIMIT, BENCH_CONVERGENCE_STEADY_SECONDS (default 60),
 * BENCH_CONVERGENCE_PHASE_TIMEOUT_SECONDS (default 300), BENCH_CONVERGENCE_CONCURRENCY (default 4).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { launchCluster, stopCluster } from '../test/cluster/cluster-launcher';
import { installCrd, installOperatorRelease } from '../test/e2e/controller-support/release';
import { CountingProxy } from './support/convergence-counting-proxy';
import { AdminClient, writeTokenKubeconfig } from './support/convergence-kube';
import { runBaseline, runRedkite, type PhaseSettings } from './support/convergence-phases';
import { formatSize, type SizeResult } from './support/convergence-report';
import type { PodBacking } from './support/convergence-workloads';

function positiveNumber(variable: string, fallback: number): number {
  const raw = process.env[variable];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${variable} must be a positive number, got "${raw}"`);
  return value;
}

function sizesFromEnvironment(): number[] {
  const raw = process.env.BENCH_CONVERGENCE_SIZES ?? '100,1000';
  const sizes = raw.split(',').map((part) => Number(part.trim()));
  if (sizes.length === 0 || sizes.some((size) => !Number.isInteger(size) || size < 1)) {
    throw new Error(`BENCH_CONVERGENCE_SIZES must be a comma-separated list of positive integers, got "${raw}"`);
  }
  return [...new Set(sizes)].sort((a, b) => a - b);
}

const sizes = sizesFromEnvironment();
const realPodLimit = positiveNumber('BENCH_CONVERGENCE_REAL_POD_LIMIT', 100);
const steadyWindowMilliseconds = positiveNumber('BENCH_CONVERGENCE_STEADY_SECONDS', 60) * 1000;
const phaseTimeoutMilliseconds = positiveNumber('BENCH_CONVERGENCE_PHASE_TIMEOUT_SECONDS', 300) * 1000;
const concurrency = positiveNumber('BENCH_CONVERGENCE_CONCURRENCY', 4);

const benchStarted = Date.now();
function log(line: string): void {
  process.stderr.write(`[bench ${((Date.now() - benchStarted) / 1000).toFixed(0).padStart(4)} s] ${line}\n`);
}

async function main(): Promise<void> {
  const stateDir = resolve(__dirname, '..', '.cluster', `bench-convergence-${process.pid}`);
  const logFolder = mkdtempSync(join(tmpdir(), 'redkite-bench-convergence-'));
  let admin: AdminClient | undefined;
  let proxy: CountingProxy | undefined;
  const results: SizeResult[] = [];
  const failures: string[] = [];
  try {
    log(`starting a fresh local cluster in ${stateDir}`);
    const endpoints = await launchCluster({
      stateDir,
      exitWithParent: true,
      onProgress: (line) => {
        if (line.includes('[cluster:build]') && !line.includes('cached at')) log(line);
      },
    });
    log(`cluster ready (${endpoints.apiServerUrl}, pods in ${endpoints.loopbackBlock})`);
    admin = new AdminClient(endpoints.kubeconfig);
    await installCrd(admin.config);
    await installOperatorRelease(admin.config);
    proxy = new CountingProxy(admin.server, admin.caPem());
    const proxyUrl = await proxy.listen();
    const controllerKubeconfig = writeTokenKubeconfig(proxyUrl, proxy.certificatePem, await admin.operatorToken());
    log(`counting proxy ${proxyUrl} → ${admin.server}; controller logs in ${logFolder}`);

    const settings: PhaseSettings = { admin, kubeconfigPath: endpoints.kubeconfig, concurrency, phaseTimeoutMilliseconds, log };
    for (const [index, size] of sizes.entries()) {
      const backing: PodBacking = size <= realPodLimit ? 'real' : 'noProcess';
      // Real pods keep probing and would load the next phase: delete them. Pods without a process cost next to
      // nothing, so the largest, last sizes keep theirs and the run ends sooner.
      const cleanUp = backing === 'real' || index < sizes.length - 1;
      log(`— N = ${size}, ${backing === 'real' ? 'real redis-server pods' : 'fallback: pods without a process'} —`);
      try {
        const baseline = await runBaseline(settings, size, backing, cleanUp);
        const redkite = await runRedkite({ ...settings, proxy, controllerKubeconfig, logFolder, steadyWindowMilliseconds }, size, backing, cleanUp);
        results.push({ baseline, redkite });
        printReport(results, false);
      } catch (error) {
        // Report what the other sizes measured; this size's failure is part of the output, not a crash.
        log(`N = ${size} failed: ${(error as Error).message}`);
        failures.push(`N = ${size}: not measured: ${(error as Error).message}`);
        process.exitCode = 1;
        break;
      }
    }
    printReport(results, true);
    if (failures.length > 0) console.log(failures.join('\n'));
  } finally {
    await proxy?.close();
    admin?.close();
    log('stopping the cluster');
    const stopped = await stopCluster(stateDir);
    if (stopped.leftovers.length > 0) log(`killed ${stopped.leftovers.length} leftover processes of the cluster`);
    rmSync(stateDir, { recursive: true, force: true });
    log(`done in ${((Date.now() - benchStarted) / 1000).toFixed(0)} s`);
  }
}

function printReport(results: readonly SizeResult[], final: boolean): void {
  const lines: string[] = [];
  if (!final) {
    // Progress: the figures of the size just finished, in case a later size is interrupted.
    lines.push(...formatSize(results[results.length - 1]!), '');
    process.stderr.write(lines.join('\n') + '\n');
    return;
  }
  lines.push(`redkite convergence benchmark (Node ${process.version}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, ` +
    `${concurrency} requests in flight for both clients, controller --max-concurrent-reconciles 4)`);
  lines.push('');
  lines.push('Every RedisCluster has spec.replicas: 1 (one pod): convergence cost per cluster without replication to wait for, and');
  lines.push(`the most clusters this machine can back with real pods. Pods are real redis-server processes up to ${realPodLimit} (BENCH_CONVERGENCE_REAL_POD_LIMIT):`);
  lines.push('the node agent runs an exec readiness probe (sh + redis-cli + grep, through a watchdog) every 2 s and a liveness');
  lines.push('probe every 10 s per pod — about 0.6 probe executions per pod per second, which 2 cores cannot sustain for 1000 pods.');
  lines.push('Probe periods come from the workload construct and are not configurable, and the harness is not changed here.');
  lines.push('Above the limit, pods use an image the node agent will not run: they exist, are bound and get an IP, but no');
  lines.push('process; nothing can be Ready, so those sizes report "objects in place" (children + observedGeneration) only.');
  lines.push('Writes are POST/PUT/PATCH/DELETE the controller sent, counted by a TLS proxy between it and the apiserver.');
  lines.push('');
  for (const result of results) lines.push(...formatSize(result), '');
  console.log(lines.join('\n'));
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
