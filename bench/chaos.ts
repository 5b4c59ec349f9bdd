/**
 * Chaos benchmark (`npm run bench:chaos`): N randomized fault schedules (kills, freezes and deletions of the primary
 * or a replica, lost volumes, the primary partitioned from one or every replica, a pod partitioned from the
 * controller, stalled controller watches, controller kills; `--faults` narrows them) against RedisClusters managed by the real controller on the local cluster harness, each checked by the history
 * checker (test/support/history).
 *
 * A fresh local cluster is started (and stopped) here, with a kubelet-like restart delay: a killed container restarts
 * after ≥ 1 s (the kubelet's relist), then with the KEP-4603 back-off of 1 s doubling up to 60 s
 * (`--restart-backoff-milliseconds` sets the base). Per schedule: its own
 * namespace, its own `redkite run` (release RBAC, that namespace only, as a harness controller identity so a pod can be
 * partitioned from it and its watches stalled) and one RedisCluster (3 pods,
 * minReplicasToWrite 1, the CRD's other defaults); three writers on the primary Service — SET + WAIT 1 300 reconnecting
 * on errors, min-replicas (an OK from a primary enforcing min-replicas-to-write) reconnecting, and SET + WAIT 1 on a held
 * connection —, a ROLE/INFO sampler on every pod every 20 ms; the faults at their drawn times; then every fault
 * healed, the cluster healthy again, and every acknowledged key read back from the final primary. The namespace is
 * deleted after each schedule.
 *
 * Schedules are drawn up front from a seeded PRNG: `--seed` with the same other parameters replays the same plan
 * (targets are chosen among the pods present at injection time, so live timing still varies).
 *
 * Exit code 1 when any acknowledged write was lost, more than one writable primary was seen, a cluster did not
 * recover, or the bench itself failed.
 */
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { KubeConfig } from '@kubernetes/client-node';
import { launchCluster, stopCluster } from '../test/cluster/cluster-launcher';
import { REDUCED_KUBELET_RESTART_BACKOFF } from '../test/cluster/node-agent/restart-backoff';
import { installCrd, installOperatorRelease } from '../test/e2e/controller-support/release';
import { NodeAgentClient } from '../test/e2e/support/node-agent-client';
import { faultKindsNamed, FAULT_KINDS } from './support/chaos-faults';
import { ChaosRandom } from './support/chaos-random';
import { formatChaosReport, totalsOf } from './support/chaos-report';
import { runSchedule, type ScheduleResult } from './support/chaos-run';
import { describeSchedule, generateSchedule, type ScheduledFault } from './support/chaos-schedule';
import { describeLoad } from './support/failover-load';

const REPOSITORY_ROOT = resolve(__dirname, '..');

function integer(minimum: number): (raw: string) => number {
  return (raw) => {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < minimum) throw new InvalidArgumentError(`expected an integer ≥ ${minimum}, got "${raw}"`);
    return value;
  };
}

const program = new Command('bench:chaos')
  .description('randomized fault schedules against redkite, checked for lost acknowledged writes and split brain')
  .option('--seed <n>', 'PRNG seed (printed; replays a run)', integer(0))
  .option('--schedules <n>', 'fault schedules, each on its own RedisCluster', integer(1), 3)
  .option('--faults-per-schedule <n>', 'faults drawn per schedule', integer(1), 5)
  .option('--duration-seconds <n>', 'how long faults are injected per schedule', integer(5), 60)
  .option('--recovery-timeout-seconds <n>', 'how long a cluster may take to be healthy again', integer(10), 180)
  .option('--restart-backoff-milliseconds <n>', 'crash-loop back-off base of the node agent (doubling, up to 60 s)', integer(1), REDUCED_KUBELET_RESTART_BACKOFF.baseMilliseconds)
  .option('--faults <kinds>', `comma-separated fault kinds (default: all of ${FAULT_KINDS.map((kind) => kind.name).join(', ')})`)
  .parse();

const options = program.opts<{
  seed?: number;
  schedules: number;
  faultsPerSchedule: number;
  durationSeconds: number;
  recoveryTimeoutSeconds: number;
  restartBackoffMilliseconds: number;
  faults?: string;
}>();

const benchStarted = Date.now();
function log(line: string): void {
  process.stderr.write(`[chaos ${((Date.now() - benchStarted) / 1000).toFixed(0).padStart(4)} s] ${line}\n`);
}

let stateDirToStop: string | undefined;

async function main(): Promise<void> {
  const seed = options.seed ?? ChaosRandom.randomSeed();
  const kinds = faultKindsNamed(options.faults?.split(',').map((name) => name.trim()));
  const durationMilliseconds = options.durationSeconds * 1000;
  const random = new ChaosRandom(seed);
  const schedules: ScheduledFault[][] = Array.from({ length: options.schedules }, () =>
    generateSchedule(random, { faults: options.faultsPerSchedule, durationMilliseconds, kinds }),
  );
  const replay =
    `npm run bench:chaos -- --seed ${seed} --schedules ${options.schedules} --faults-per-schedule ${options.faultsPerSchedule} ` +
    `--duration-seconds ${options.durationSeconds}` +
    (options.faults ? ` --faults ${kinds.map((kind) => kind.name).join(',')}` : '') +
    (options.restartBackoffMilliseconds !== REDUCED_KUBELET_RESTART_BACKOFF.baseMilliseconds ? ` --restart-backoff-milliseconds ${options.restartBackoffMilliseconds}` : '');
  log(`seed ${seed}; replay with: ${replay}`);
  log(`fault kinds: ${kinds.map((kind) => kind.name).join(', ')}; ${describeLoad()}`);
  schedules.forEach((schedule, index) => log(`schedule ${index + 1}: ${describeSchedule(schedule).join('; ')}`));

  const stateDir = resolve(REPOSITORY_ROOT, '.cluster', `bench-chaos-${process.pid}`);
  stateDirToStop = stateDir;
  const results: ScheduleResult[] = [];
  try {
    log(`starting a fresh local cluster in ${stateDir}`);
    const endpoints = await launchCluster({
      stateDir,
      exitWithParent: true,
      restartMinimumDelayMilliseconds: REDUCED_KUBELET_RESTART_BACKOFF.minimumDelayMilliseconds,
      restartBackoffBaseMilliseconds: options.restartBackoffMilliseconds,
      restartBackoffMaxMilliseconds: Math.max(options.restartBackoffMilliseconds, REDUCED_KUBELET_RESTART_BACKOFF.maxMilliseconds),
      onProgress: (line) => {
        if (line.includes('[cluster:build]') && !line.includes('cached at')) log(line);
      },
    });
    const admin = new KubeConfig();
    admin.loadFromFile(endpoints.kubeconfig);
    await installCrd(admin);
    await installOperatorRelease(admin);
    const agent = new NodeAgentClient(endpoints.agentUrl);
    log(`cluster ready (${endpoints.apiServerUrl})`);
    for (const [index, schedule] of schedules.entries()) {
      log(`schedule ${index + 1} of ${schedules.length}: starting`);
      const result = await runSchedule({
        index: index + 1,
        seed,
        schedule,
        kinds,
        durationMilliseconds,
        recoveryTimeoutMilliseconds: options.recoveryTimeoutSeconds * 1000,
        admin,
        agent,
        spec: { replicas: 3, minReplicasToWrite: 1 },
        log,
      });
      results.push(result);
      const figures = result.history
        ? `acknowledged ${result.history.acknowledged}, lost ${result.history.lost}`
        : 'no read-back';
      log(
        `schedule ${index + 1}: ${figures}, max writable primaries ${result.roles?.maxWritablePrimaries ?? 'n/a'}, ` +
          `longest without a writable primary ${result.roles?.longestNoWritablePrimaryMilliseconds ?? 'n/a'} ms` +
          (result.problems.length > 0 ? `; PROBLEMS:\n${result.problems.join('\n')}` : ''),
      );
    }
  } finally {
    log('stopping the local cluster');
    await stopCluster(stateDir);
    rmSync(stateDir, { recursive: true, force: true });
    stateDirToStop = undefined;
  }

  const totals = totalsOf(results);
  const out = [
    '',
    `Chaos benchmark — seed ${seed}, ${options.schedules} schedules × ${options.faultsPerSchedule} faults over ${options.durationSeconds} s each`,
    `Replay: ${replay}`,
    `Fault kinds drawn from: ${kinds.map((kind) => kind.name).join(', ')}; lasting faults held 0.5–8 s; containers restart after ≥ 1 s, back-off ${options.restartBackoffMilliseconds} ms doubling.`,
    'RedisCluster: replicas 3, minReplicasToWrite 1 (other fields at the CRD defaults). Writers on the primary Service: SET + WAIT 1 300',
    '(reconnecting), min-replicas (reconnecting), SET + WAIT 1 300 on a held connection. ROLE sampler every 20 ms on every pod.',
    '',
    ...formatChaosReport(results, kinds.map((kind) => kind.name)),
    '',
    `Result: ${totals.injectedCount} faults injected, ${totals.acknowledged} acknowledged writes, ${totals.lost} lost ` +
      `(${totals.lostWaitAcknowledged} acknowledged with WAIT 1, ${totals.lostMinReplicasAcknowledged} acknowledged only by min-replicas-to-write), ` +
      `at most ${totals.maxWritablePrimaries} writable primaries, longest window without one ${totals.longestNoWritablePrimaryMilliseconds} ms; ` +
      `${totals.failedSchedules} of ${results.length} schedules failed; ${totals.heldForHumanSchedules} waited for a human decision (no read-back).`,
  ];
  console.log(out.join('\n'));
  if (totals.failedSchedules > 0 || results.length < options.schedules) process.exitCode = 1;
  log(`done in ${((Date.now() - benchStarted) / 1000).toFixed(0)} s`);
}

function onSignal(signal: NodeJS.Signals): void {
  log(`${signal}: stopping the local cluster`);
  const stateDir = stateDirToStop;
  void (stateDir ? stopCluster(stateDir) : Promise.resolve()).finally(() => process.exit(130));
}
process.once('SIGINT', onSignal);
process.once('SIGTERM', onSignal);

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
