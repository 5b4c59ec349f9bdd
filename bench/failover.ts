/**
 * Failover benchmark (`npm run bench:failover`): time from SIGKILL of the primary's process to the first acknowledged
 * write on the new primary, and acknowledged writes lost — redkite and Redis Sentinel, at the same detection threshold,
 * in one run.
 *
 * 1. redkite: a fresh local cluster (started and stopped here), `redkite run` as a child process under the release's
 *    ServiceAccount and RBAC, one RedisCluster (replicas 3, minReplicasToWrite 1, failureDetectionMilliseconds D). Per
 *    trial: wait until Ready with the primary Service routing to the primary alone; a writer sends SET + WAIT 1 300
 *    through the primary Service's ClusterIP; the node agent SIGKILLs the primary's process; the time to the first
 *    acknowledged write *sent after the kill* is measured; every acknowledged key is read back from the new primary.
 * 2. Redis Sentinel: 3 sentinels, quorum 2, down-after D, the same writer through an ioredis Sentinel client
 *    (bench/sentinel-baseline.ts).
 *
 * Environment: BENCH_FAILOVER_DETECTION_MS (D, default 1000, CRD minimum 500), BENCH_FAILOVER_TRIALS (default 10),
 * BENCH_FAILOVER_WAIT_MS (the writer's WAIT timeout, default 300), BENCH_FAILOVER_SKIP_SENTINEL=1 (redkite only),
 * BENCH_FAILOVER_KEPT_DOWN=0 (skip the "kept down" redkite scenario), BENCH_FAILOVER_RESTART_BACKOFF_MS and
 * BENCH_FAILOVER_RESTART_BACKOFF_MAX_MS (the agent's crash-loop back-off, default 1–50 ms: every kill is followed by
 * an immediate restart, like a kubelet's first restart, however often a pod is killed).
 *
 * redkite runs two scenarios on the same RedisCluster: "restarted" (the agent restarts the killed container at once)
 * and "kept down" (the restarted process is SIGSTOPped at once and SIGCONTed after the trial, so the primary stays
 * unreachable past D as in the Sentinel setup).
 */
import { cpus, totalmem } from 'node:os';
import { runSentinelTrials, type SentinelTrialResult } from './sentinel-baseline';
import { describeLoad, otherClusterDaemons } from './support/failover-load';
import { RedkiteFailoverBench, type KillScenario, type RedkiteTrial } from './support/failover-redkite';
import { formatRatio, formatSummaryTable, formatTrial, summarize, type SummaryColumn } from './support/failover-report';

function integerFromEnvironment(variable: string, fallback: number, minimum: number): number {
  const raw = process.env[variable];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < minimum) throw new Error(`${variable} must be an integer ≥ ${minimum}, got "${raw}"`);
  return value;
}

const detectionMilliseconds = integerFromEnvironment('BENCH_FAILOVER_DETECTION_MS', 1000, 500);
const trials = integerFromEnvironment('BENCH_FAILOVER_TRIALS', 10, 1);
const waitTimeoutMilliseconds = integerFromEnvironment('BENCH_FAILOVER_WAIT_MS', 300, 1);
const restartBackoffBaseMilliseconds = integerFromEnvironment('BENCH_FAILOVER_RESTART_BACKOFF_MS', 1, 1);
const restartBackoffMaxMilliseconds = integerFromEnvironment('BENCH_FAILOVER_RESTART_BACKOFF_MAX_MS', 50, restartBackoffBaseMilliseconds);
const runKeptDown = process.env.BENCH_FAILOVER_KEPT_DOWN !== '0';
const skipSentinel = process.env.BENCH_FAILOVER_SKIP_SENTINEL === '1';

const benchStarted = Date.now();
function log(line: string): void {
  process.stderr.write(`[bench ${((Date.now() - benchStarted) / 1000).toFixed(0).padStart(4)} s] ${line}\n`);
}

const SCENARIO_TITLE: Record<KillScenario, string> = {
  restarted: 'redkite (restarted)',
  keptDown: 'redkite (kept down)',
};

interface ScenarioRun {
  readonly scenario: KillScenario;
  readonly results: RedkiteTrial[];
  readonly failed: string[];
  readonly loads: string[];
}

let redkiteBench: RedkiteFailoverBench | undefined;

function trialDetail(result: RedkiteTrial): string {
  const restart = result.restartedAfterMilliseconds === undefined ? 'not seen' : `+${result.restartedAfterMilliseconds} ms`;
  const frozen = result.frozenAfterMilliseconds === undefined ? '' : `, frozen +${result.frozenAfterMilliseconds} ms`;
  const decision = result.decision
    ? `; controller: ${result.decision.event} at +${result.decision.afterKillMilliseconds} ms`
    : '; controller: no promotion logged';
  return `; killed container back ${restart}${frozen}${decision}`;
}

async function runRedkite(): Promise<{ runs: ScenarioRun[]; others: string[]; stateDir: string }> {
  const runs: ScenarioRun[] = [];
  const others = new Set<string>();
  const bench = await RedkiteFailoverBench.start({
    detectionMilliseconds,
    waitTimeoutMilliseconds,
    restartBackoffBaseMilliseconds,
    restartBackoffMaxMilliseconds,
    log,
  });
  redkiteBench = bench;
  try {
    const scenarios: KillScenario[] = runKeptDown ? ['restarted', 'keptDown'] : ['restarted'];
    for (const scenario of scenarios) {
      const run: ScenarioRun = { scenario, results: [], failed: [], loads: [] };
      runs.push(run);
      for (let trial = 1; trial <= trials; trial++) {
        const load = describeLoad();
        run.loads.push(load);
        for (const other of otherClusterDaemons(bench.stateDir)) others.add(other);
        try {
          const result = await bench.runTrial(trial, scenario);
          run.results.push(result);
          log(formatTrial(SCENARIO_TITLE[scenario], result, `${trialDetail(result)}; ${load}`));
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          run.failed.push(`trial ${trial}: ${message}`);
          log(`${SCENARIO_TITLE[scenario]} trial ${String(trial).padStart(2)} FAILED: ${message}`);
        }
      }
    }
  } finally {
    redkiteBench = undefined;
    await bench.stop();
  }
  return { runs, others: [...others], stateDir: bench.stateDir };
}

async function runSentinel(): Promise<{ results: SentinelTrialResult[]; failed: string | undefined; loads: string[] }> {
  const results: SentinelTrialResult[] = [];
  const loads: string[] = [];
  log(`Redis Sentinel: 3 sentinels, quorum 2, down-after-milliseconds ${detectionMilliseconds}`);
  try {
    await runSentinelTrials({
      downAfterMilliseconds: detectionMilliseconds,
      trials,
      waitTimeoutMilliseconds,
      onTrial: (result) => {
        results.push(result);
        const load = describeLoad();
        loads.push(load);
        log(formatTrial('Sentinel', result, `; ${load}`));
      },
    });
    return { results, failed: undefined, loads };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log(`Sentinel FAILED after ${results.length} trials: ${message}`);
    return { results, failed: message, loads };
  }
}

/** The controller's log lines of a trial, shortened to what explains its timing. */
function controllerEvidence(trial: RedkiteTrial): string[] {
  const lines = trial.controllerLog.map((line) => {
    try {
      const entry = JSON.parse(line) as Record<string, unknown>;
      const { time, level, msg, pid: _pid, hostname: _hostname, controller: _controller, key: _key, namespace: _namespace, name: _name, reconcileId: _id, ...rest } = entry;
      const detail = JSON.stringify(rest);
      return `  ${String(time ?? '').slice(11, 23)} ${String(level ?? '')} ${String(msg ?? '')} ${detail.length > 600 ? `${detail.slice(0, 600)}…` : detail}`;
    } catch {
      return `  ${line.length > 600 ? `${line.slice(0, 600)}…` : line}`;
    }
  });
  return lines.length > 30 ? [...lines.slice(0, 30), `  … ${lines.length - 30} more lines`] : lines;
}

async function main(): Promise<void> {
  log(
    `failover benchmark: D = ${detectionMilliseconds} ms, ${trials} trials per setup, writer SET + WAIT 1 ${waitTimeoutMilliseconds}; ` +
      `${describeLoad()}; other local clusters running: ${otherClusterDaemons('').join(', ') || 'none'}`,
  );
  const redkite = await runRedkite();
  const sentinel = skipSentinel ? undefined : await runSentinel();

  const columns: SummaryColumn[] = redkite.runs.map((run) => ({ title: SCENARIO_TITLE[run.scenario], summary: summarize(run.results, run.failed.length) }));
  const sentinelColumn: SummaryColumn | undefined = sentinel
    ? { title: 'Redis Sentinel', summary: summarize(sentinel.results, sentinel.failed ? trials - sentinel.results.length : 0) }
    : undefined;

  const out: string[] = [];
  out.push('');
  out.push(`Failover benchmark — Node ${process.version}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB`);
  out.push(`Detection threshold D = ${detectionMilliseconds} ms: redkite spec.failureDetectionMilliseconds = Sentinel down-after-milliseconds.`);
  out.push(`Writer: one write at a time, SET then WAIT 1 ${waitTimeoutMilliseconds}; a key counts as acknowledged only when WAIT reports ≥ 1 replica.`);
  out.push('Failover time: from just before the SIGKILL request to the acknowledgement of the first write whose SET was sent after it');
  out.push('(only a new primary can have acknowledged it). Lost: acknowledged keys missing or different when read back from the new primary.');
  out.push('');
  out.push('What the kill means in each setup:');
  out.push('- redkite: RedisCluster replicas 3, minReplicasToWrite 1; the controller runs as a child process under the release RBAC and');
  out.push('  probes the primary every 500 ms. The local cluster\'s node agent SIGKILLs the primary pod\'s redis-server.');
  out.push('  redkite boots every Redis fenced, as a replica of an unreachable address, so a restarted primary never serves stale');
  out.push('  data, and the controller elects the most up-to-date replica (highest replication offset), moves the role label,');
  out.push('  and the primary Service (a ClusterIP the agent proxies) follows the label. Client: ioredis on the primary Service');
  out.push('  ClusterIP, reconnect every 50 ms, no offline queue.');
  out.push(`  * "restarted": like a kubelet, the agent restarts the killed container at once (crash-loop back-off ${restartBackoffBaseMilliseconds}–${restartBackoffMaxMilliseconds} ms`);
  out.push('    here, so every kill is a first-restart-like immediate restart; a real kubelet takes ~1 s to notice a crash and backs off');
  out.push('    10 s on a repeat crash). The restarted old primary answers as a fenced replica within ~100 ms, and the controller');
  out.push('    reacts to "labelled primary reports role replica" at once (Event PrimaryDerived) — it does not wait for D.');
  if (redkite.runs.some((run) => run.scenario === 'keptDown')) {
    out.push('  * "kept down": same kill, but the restarted process is SIGSTOPped the moment the agent reports its PID (and SIGCONTed');
    out.push('    after the trial), so the primary stays unreachable past D, as the killed primary does in the Sentinel setup: the');
    out.push('    detection timer D runs out and the controller fails over (Event PrimaryFailedOver). This is the like-for-like');
    out.push('    comparison with Sentinel at the same threshold.');
  }
  if (sentinel) {
    out.push('- Sentinel: the primary redis-server process is SIGKILLed and stays down until the trial is over (then restarted as a');
    out.push('  replica of the new primary). 3 sentinels, quorum 2, failover-timeout 10 s, processes on 127.0.4.x. Client: ioredis');
    out.push('  Sentinel client, sentinel and reconnect retry every 50 ms (offline queue on, the ioredis default).');
  }
  for (const run of redkite.runs) {
    out.push('');
    out.push(`${SCENARIO_TITLE[run.scenario]} trials:`);
    for (const result of run.results) out.push(`  ${formatTrial('redkite', result, trialDetail(result))}`);
    for (const failure of run.failed) out.push(`  FAILED ${failure.split('\n')[0]}`);
  }
  if (sentinel) {
    out.push('');
    out.push('Sentinel trials:');
    for (const result of sentinel.results) out.push(`  ${formatTrial('Sentinel', result)}`);
    if (sentinel.failed) out.push(`  FAILED: ${sentinel.failed.split('\n')[0]}`);
  }
  out.push('');
  out.push(...formatSummaryTable(sentinelColumn ? [...columns, sentinelColumn] : columns));
  if (sentinelColumn) {
    out.push('');
    for (const column of columns) out.push(formatRatio(column.title.replace(/^redkite \((.*)\)$/, '$1'), sentinelColumn.summary, column.summary));
  }
  out.push('');
  for (const run of redkite.runs) out.push(`CPU load during the ${SCENARIO_TITLE[run.scenario]} trials: ${run.loads.join(', ')}`);
  if (sentinel) out.push(`CPU load during the Sentinel trials: ${sentinel.loads.join(', ')}`);
  out.push(
    redkite.others.length > 0
      ? `Other local clusters running during the redkite trials (sharing the CPU): ${redkite.others.join(', ')}`
      : 'No other local cluster was running during the redkite trials.',
  );
  const all = redkite.runs.flatMap((run) => run.results);
  for (const run of redkite.runs) {
    const slowest = [...run.results].sort((a, b) => b.failoverMilliseconds - a.failoverMilliseconds)[0];
    if (!slowest) continue;
    out.push('');
    out.push(`Controller log of the slowest ${SCENARIO_TITLE[run.scenario]} trial (${slowest.trial}, ${slowest.failoverMilliseconds} ms), from the kill to the end of the trial:`);
    out.push('  writer errors after the kill (message: count, first–last ms after the kill):');
    for (const group of slowest.errorsAfterKill) out.push(`    ${group.message}: ${group.count}, +${group.firstMilliseconds}–${group.lastMilliseconds} ms`);
    out.push('  primary Service endpoints (as the agent proxies them) and writer connection events:');
    for (const event of slowest.timeline) out.push(`    ${event}`);
    out.push('  controller log:');
    out.push(...controllerEvidence(slowest));
  }
  const lossy = all.find((result) => result.lostAcknowledgedWrites > 0);
  if (lossy) {
    out.push('');
    out.push(`Controller log of ${SCENARIO_TITLE[lossy.scenario]} trial ${lossy.trial}, which lost ${lossy.lostAcknowledgedWrites} acknowledged writes:`);
    out.push(...controllerEvidence(lossy));
  }
  console.log(out.join('\n'));
  if (redkite.runs.some((run) => run.failed.length > 0) || sentinel?.failed) process.exitCode = 1;
  log(`done in ${((Date.now() - benchStarted) / 1000).toFixed(0)} s; controller, cluster and sentinels stopped`);
}

function onSignal(signal: NodeJS.Signals): void {
  log(`${signal}: stopping the controller and the cluster`);
  const bench = redkiteBench;
  redkiteBench = undefined;
  // process.exit runs the 'exit' handlers that SIGKILL the Sentinel topology's redis processes.
  void (bench ? bench.stop() : Promise.resolve()).finally(() => process.exit(130));
}
process.once('SIGINT', onSignal);
process.once('SIGTERM', onSignal);

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
