import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { setTimeout as delay } from 'node:timers/promises';
import { ControllerProcess, type ResidentMemory } from './convergence-controller';
import type { CountingProxy, RequestTally } from './convergence-counting-proxy';
import { forEachConcurrently, type AdminClient } from './convergence-kube';
import { clustersObserved, clustersReady, podsReady, podsReported, pollUntil, type Observation } from './convergence-observer';
import type { PlainClientReport } from './convergence-plain-client';
import { clusterNames, expectedChildren, redisClusterObject, type PodBacking } from './convergence-workloads';

const execFileAsync = promisify(execFile);

/** Settings shared by every phase of a run. */
export interface PhaseSettings {
  readonly admin: AdminClient;
  /** The admin kubeconfig, for the plain-client child process. */
  readonly kubeconfigPath: string;
  /** Requests at most in flight when creating objects: the controller's default `--max-concurrent-reconciles`. */
  readonly concurrency: number;
  readonly phaseTimeoutMilliseconds: number;
  readonly log: (line: string) => void;
}

function pollInterval(size: number): number {
  // Each poll lists up to `size` objects: keep the benchmark's own load on the apiserver small next to what it measures.
  return size <= 200 ? 500 : 2000;
}

/** What a plain client achieves with the same objects. */
export interface BaselineResult {
  readonly size: number;
  readonly backing: PodBacking;
  readonly objectCount: number;
  /** Synthesizing the manifests in memory (not part of the timed apply). */
  readonly synthesisSeconds: number;
  /** From the first apply to the last answer. */
  readonly applySeconds: number;
  /** real: all pods Ready; noProcess: all pods bound with a container status. Timed from the first apply. */
  readonly pods: Observation;
  /** Deleting the namespace (real pods only, so their probes do not load the redkite phase). */
  readonly cleanupSeconds: number | undefined;
  /** Peak RSS of the plain-client process (it runs on its own, like the controller). */
  readonly peakRssMebibytes: number;
}

/** Runs the plain client in its own process and returns what it reports. */
async function runPlainClientProcess(settings: PhaseSettings, namespace: string, size: number, backing: PodBacking): Promise<PlainClientReport> {
  const script = join(__dirname, 'convergence-plain-client.ts');
  const { stdout } = await execFileAsync(
    process.execPath,
    ['--import', 'tsx', script, settings.kubeconfigPath, namespace, String(size), backing, String(settings.concurrency)],
    { maxBuffer: 16 * 1024 * 1024, timeout: settings.phaseTimeoutMilliseconds },
  );
  const lastLine = stdout.trim().split('\n').pop() ?? '';
  return JSON.parse(lastLine) as PlainClientReport;
}

/** Server-side applies the workload manifests and a Secret per cluster, as `kubectl apply --server-side` would. */
export async function runBaseline(settings: PhaseSettings, size: number, backing: PodBacking, cleanUp: boolean): Promise<BaselineResult> {
  const { admin, log } = settings;
  const namespace = `bench-plain-${size}`;
  await admin.createNamespace(namespace);
  log(`plain client: applying the objects for ${size} clusters from its own process (${settings.concurrency} in flight)`);
  const started = Date.now();
  const report = await runPlainClientProcess(settings, namespace, size, backing);
  const { objectCount, synthesisSeconds, applySeconds } = report;
  log(`plain client: applied in ${applySeconds.toFixed(1)} s; waiting for the pods`);
  const pollOptions = { startedAtMilliseconds: started, intervalMilliseconds: pollInterval(size), timeoutMilliseconds: settings.phaseTimeoutMilliseconds, log };
  const pods = backing === 'real'
    ? await pollUntil('plain client pods Ready', podsReady(admin, namespace, size), pollOptions)
    : await pollUntil('plain client pods bound', podsReported(admin, namespace, size), pollOptions);
  log(`plain client: ${pods.progress}${pods.seconds === undefined ? ' (timed out)' : ` after ${pods.seconds.toFixed(1)} s`}`);
  let cleanupSeconds: number | undefined;
  if (cleanUp) {
    cleanupSeconds = await admin.deleteNamespace(namespace, settings.phaseTimeoutMilliseconds);
    log(`plain client: namespace deleted in ${cleanupSeconds.toFixed(1)} s`);
  }
  return { size, backing, objectCount, synthesisSeconds, applySeconds, pods, cleanupSeconds, peakRssMebibytes: report.peakRssMebibytes };
}

/** What redkite achieves, with the controller's requests counted by the proxy. */
export interface RedkiteResult {
  readonly size: number;
  readonly backing: PodBacking;
  /** Writes between the controller's start and the first RedisCluster (should be none). */
  readonly startupWrites: RequestTally;
  /** Creating the N RedisClusters (by the benchmark, not counted as the controller's writes). */
  readonly createSeconds: number;
  /** Every cluster's children exist and its status.observedGeneration is current. */
  readonly observed: Observation;
  /** real: every cluster Ready; noProcess: every pod bound with a container status. */
  readonly pods: Observation;
  /** The controller's requests from the first create to `pods` (or `observed` on timeout). */
  readonly convergenceWrites: RequestTally;
  readonly convergenceReconciles: number;
  readonly steadyWindowSeconds: number;
  readonly steadyWrites: RequestTally;
  readonly steadyReconciles: number;
  readonly memory: ResidentMemory;
  readonly cleanupSeconds: number | undefined;
  readonly logFile: string;
  readonly logTail: string;
}

export interface RedkiteSettings extends PhaseSettings {
  readonly proxy: CountingProxy;
  /** The controller's kubeconfig: the operator ServiceAccount's token, through the proxy. */
  readonly controllerKubeconfig: string;
  readonly logFolder: string;
  readonly steadyWindowMilliseconds: number;
}

const RECONCILE_COUNTER = 'controller_runtime_reconcile_total';

/** Starts `redkite run` for a fresh namespace, creates N RedisClusters, waits for convergence, then a steady-state window. */
export async function runRedkite(settings: RedkiteSettings, size: number, backing: PodBacking, cleanUp: boolean): Promise<RedkiteResult> {
  const { admin, proxy, log } = settings;
  const namespace = `bench-redkite-${size}`;
  await admin.createNamespace(namespace);
  const logFile = join(settings.logFolder, `controller-${size}.log`);
  const controller = new ControllerProcess(settings.controllerKubeconfig, namespace, logFile);
  const controllerStarted = proxy.mark();
  await controller.start();
  try {
    const names = clusterNames(size);
    const started = proxy.mark();
    const startupWrites = proxy.tally(controllerStarted, started);
    const reconcilesAtStart = await controller.counter(RECONCILE_COUNTER);
    log(`redkite: creating ${size} RedisClusters (${settings.concurrency} in flight)`);
    await forEachConcurrently(names, settings.concurrency, (name) => admin.create(redisClusterObject(name, namespace, backing)));
    const createSeconds = (Date.now() - started) / 1000;
    log(`redkite: created in ${createSeconds.toFixed(1)} s; waiting for the controller`);
    const pollOptions = { startedAtMilliseconds: started, intervalMilliseconds: pollInterval(size), timeoutMilliseconds: settings.phaseTimeoutMilliseconds, log };
    const observed = await pollUntil('redkite children + observedGeneration', clustersObserved(admin, namespace, names, expectedChildren(backing)), pollOptions);
    log(`redkite: ${observed.progress}${observed.seconds === undefined ? ' (timed out)' : ` after ${observed.seconds.toFixed(1)} s`}`);
    const pods = backing === 'real'
      ? await pollUntil('redkite clusters Ready', clustersReady(admin, namespace, size), pollOptions)
      : await pollUntil('redkite pods bound', podsReported(admin, namespace, size), pollOptions);
    log(`redkite: ${pods.progress}${pods.seconds === undefined ? ' (timed out)' : ` after ${pods.seconds.toFixed(1)} s`}`);
    const convergedAt = Date.now();
    const convergenceWrites = proxy.tally(started, convergedAt);
    const convergenceReconciles = (await controller.counter(RECONCILE_COUNTER)) - reconcilesAtStart;

    log(`redkite: steady-state window of ${settings.steadyWindowMilliseconds / 1000} s`);
    const reconcilesBeforeWindow = await controller.counter(RECONCILE_COUNTER);
    const windowStarted = proxy.mark();
    await delay(settings.steadyWindowMilliseconds);
    const windowEnded = proxy.mark();
    const steadyWrites = proxy.tally(windowStarted, windowEnded);
    const steadyReconciles = (await controller.counter(RECONCILE_COUNTER)) - reconcilesBeforeWindow;
    const memory = controller.residentMemory();
    let cleanupSeconds: number | undefined;
    if (cleanUp) {
      // With the controller still running: it must remove its finalizers.
      cleanupSeconds = await admin.deleteNamespace(namespace, settings.phaseTimeoutMilliseconds);
      log(`redkite: namespace deleted in ${cleanupSeconds.toFixed(1)} s`);
    }
    return {
      size, backing, startupWrites, createSeconds, observed, pods, convergenceWrites, convergenceReconciles,
      steadyWindowSeconds: (windowEnded - windowStarted) / 1000, steadyWrites, steadyReconciles, memory, cleanupSeconds,
      logFile, logTail: controller.tail(15),
    };
  } finally {
    await controller.stop();
  }
}
