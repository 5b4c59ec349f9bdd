/**
 * Switchover benchmark (`npm run bench:switchover`): the write pause a planned change of primary causes, and the
 * acknowledged writes it loses — redkite's switchover beside Redis' own `FAILOVER TO` and Sentinel's
 * `SENTINEL FAILOVER`, in one run, on real redis-server processes on loopback.
 *
 * Each setup: 3 servers (primary + 2 replicas wired with replicaof; redkite's replication tuning, see
 * SWITCHOVER_SERVER_CONFIG), a writer sending `SET k<i> v` + `WAIT 1 <ms>` back to back, N switchovers. Before each
 * switchover the topology is settled (both replicas online and caught up) and writes flow. The pause of a
 * switchover is the longest gap between two acknowledged writes from just before it started until the next one
 * started. At the end every acknowledged key is read back from the final primary.
 *
 * - redkite: `switchover()` from operator/redis (pause-and-promote), target = the next server round the ring.
 * - Redis FAILOVER TO: the same call with `method: 'failover-command'` (FAILOVER TO, then the other replica is
 *   repointed to the new primary, as redkite did before).
 * - Sentinel: 3 sentinels, quorum 2, `SENTINEL FAILOVER` sent to each in turn; Sentinel picks the target.
 *
 * The first two writers follow the primary by asking every server ROLE after an error; the Sentinel writer is an
 * ioredis Sentinel client that reconnects (asking the Sentinels) on -READONLY and -NOREPLICAS.
 */
import { cpus } from 'node:os';
import { Command, InvalidArgumentError } from 'commander';
import Redis from 'ioredis';
import { RedisConnectionPool } from '../operator/redis/connection-pool';
import { switchover, type SwitchoverMethod } from '../operator/redis/switchover';
import { waitUntil } from '../test/support/wait-until';
import { describeLoad } from './support/failover-load';
import { MONITORED_PRIMARY_NAME, SENTINEL_PORT } from './support/sentinel-process';
import { SentinelTopology } from './support/sentinel-topology';
import { describeLostWrites, formatSwitchoverTable, longestGapPerSwitchover, type SwitchoverRun } from './support/switchover-report';
import { SWITCHOVER_SERVER_CONFIG, SwitchoverTopology, waitUntilReplicationSettled } from './support/switchover-topology';
import { findLostWrites, RoleFollowingRoute, SentinelRoute, SwitchoverWriter } from './support/switchover-writer';

type Setup = 'redkite' | 'failover' | 'sentinel';
const SETUPS: readonly Setup[] = ['redkite', 'failover', 'sentinel'];

interface Parameters {
  readonly switchovers: number;
  readonly sentinelSwitchovers: number;
  readonly waitTimeoutMilliseconds: number;
  readonly switchoverTimeoutMilliseconds: number;
  readonly writesBetween: number;
  readonly setups: readonly Setup[];
}

function positiveInteger(raw: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new InvalidArgumentError(`expected a positive integer, got "${raw}"`);
  return value;
}

function setupList(raw: string): Setup[] {
  const setups = raw.split(',').map((name) => name.trim());
  const unknown = setups.filter((name) => !SETUPS.includes(name as Setup));
  if (unknown.length > 0) throw new InvalidArgumentError(`unknown setup ${unknown.join(', ')}; choose from ${SETUPS.join(', ')}`);
  return setups as Setup[];
}

function parseParameters(argv: readonly string[]): Parameters {
  const program = new Command('bench:switchover')
    .description('Write pause and acknowledged writes lost per planned switchover: redkite, FAILOVER TO, SENTINEL FAILOVER')
    .option('-n, --switchovers <count>', 'switchovers of redkite and of FAILOVER TO', positiveInteger, 20)
    .option(
      '--sentinel-switchovers <count>',
      'switchovers of Sentinel (each takes ~12 s to settle: Sentinel demotes the old primary only 8 s after the promotion)',
      positiveInteger,
      8,
    )
    .option('--wait-timeout <ms>', 'the writer\'s WAIT 1 <ms>', positiveInteger, 300)
    .option('--switchover-timeout <ms>', 'timeoutMilliseconds of each switchover (and FAILOVER TIMEOUT)', positiveInteger, 5000)
    .option('--writes-between <count>', 'acknowledged writes required between two switchovers, once settled', positiveInteger, 300)
    .option('--setups <list>', `comma-separated subset of ${SETUPS.join(',')}`, setupList, [...SETUPS])
    .parse(argv, { from: 'user' });
  const options = program.opts<{ switchovers: number; sentinelSwitchovers: number; waitTimeout: number; switchoverTimeout: number; writesBetween: number; setups: Setup[] }>();
  return {
    switchovers: options.switchovers,
    sentinelSwitchovers: options.sentinelSwitchovers,
    waitTimeoutMilliseconds: options.waitTimeout,
    switchoverTimeoutMilliseconds: options.switchoverTimeout,
    writesBetween: options.writesBetween,
    setups: options.setups,
  };
}

const benchStarted = performance.now();
function log(line: string): void {
  process.stderr.write(`[bench ${((performance.now() - benchStarted) / 1000).toFixed(1).padStart(6)} s] ${line}\n`);
}

async function writesFlow(writer: SwitchoverWriter, count: number): Promise<void> {
  const target = writer.acknowledgedAt.length + count;
  await waitUntil(`${count} more acknowledged writes`, () => writer.acknowledgedAt.length >= target, {
    timeoutMilliseconds: 30_000,
    pollIntervalMilliseconds: 5,
  });
}

function summarizeRun(
  title: string,
  writer: SwitchoverWriter,
  startedAt: readonly number[],
  completed: readonly boolean[],
  endedAt: number,
  lost: readonly number[],
): SwitchoverRun {
  const gaps = longestGapPerSwitchover(writer.acknowledgedAt, startedAt, endedAt);
  log(`${title}: write pause per switchover (ms): ${gaps.map((gap, index) => `${gap.toFixed(1)}${completed[index] ? '' : ' (failed)'}`).join(', ')}`);
  return {
    title,
    switchovers: startedAt.length,
    failed: completed.filter((ok) => !ok).length,
    pausesMilliseconds: gaps.filter((gap, index) => completed[index] && !Number.isNaN(gap)),
    acknowledgedWrites: writer.acknowledgedAt.length,
    lostAcknowledgedWrites: lost.length,
    unacknowledgedWrites: writer.unacknowledgedWrites,
    writeErrors: writer.errorCount,
  };
}

function reportWrites(title: string, writer: SwitchoverWriter, lost: readonly number[], startedAt: readonly number[]): void {
  log(`${title}: write errors ${[...writer.errors].map(([kind, count]) => `${kind} ×${count}`).join(', ') || 'none'}`);
  for (const line of describeLostWrites(lost.map((index) => writer.acknowledgedAt[index]!), startedAt)) {
    log(`${title}: lost writes of switchover ${line}`);
  }
}

/** redkite's switchover, or FAILOVER TO through the same function, on a fresh 3-server topology. */
async function runRoleFollowing(title: string, method: SwitchoverMethod, parameters: Parameters): Promise<SwitchoverRun> {
  const topology = await SwitchoverTopology.start(method === 'pause-and-promote' ? '127.0.6' : '127.0.7');
  const clients = topology.clients();
  const pool = new RedisConnectionPool();
  const writer = SwitchoverWriter.start({
    route: new RoleFollowingRoute(clients),
    keyPrefix: `bench-${method}`,
    waitTimeoutMilliseconds: parameters.waitTimeoutMilliseconds,
  });
  const startedAt: number[] = [];
  const completed: boolean[] = [];
  try {
    for (let index = 1; index <= parameters.switchovers; index++) {
      const primaryIndex = await topology.waitUntilSettled(30_000);
      await writesFlow(writer, parameters.writesBetween);
      const targetIndex = (primaryIndex + 1) % 3;
      const otherIndex = (primaryIndex + 2) % 3;
      const endpoint = (server: number) => topology.servers[server]!.endpoint;
      startedAt.push(performance.now());
      const result = await switchover(pool, {
        primary: endpoint(primaryIndex),
        target: endpoint(targetIndex),
        otherReplicas: [endpoint(otherIndex)],
        timeoutMilliseconds: parameters.switchoverTimeoutMilliseconds,
        method,
      }).catch((error: unknown) => ({ outcome: 'failed' as const, reason: error instanceof Error ? error.message : String(error) }));
      completed.push(result.outcome === 'completed');
      const detail =
        result.outcome === 'completed'
          ? `completed in ${result.durationMilliseconds} ms, writes held ${result.writePauseMilliseconds} ms by the controller's clock`
          : `${result.outcome}: ${result.reason}`;
      log(`${title} #${String(index).padStart(2)}: ${topology.servers[primaryIndex]!.host} -> ${topology.servers[targetIndex]!.host} ${detail}`);
    }
    const finalPrimary = await topology.waitUntilSettled(30_000);
    await writesFlow(writer, parameters.writesBetween);
    const endedAt = performance.now();
    await writer.stop();
    const lost = await findLostWrites(topology.admin(finalPrimary), writer);
    reportWrites(title, writer, lost, startedAt);
    return summarizeRun(title, writer, startedAt, completed, endedAt, lost);
  } finally {
    await writer.stop();
    clients.forEach((client) => client.disconnect());
    await pool.close();
    await topology.stop();
  }
}

/** SENTINEL FAILOVER with 3 Sentinels and an ioredis Sentinel client. */
async function runSentinel(parameters: Parameters): Promise<SwitchoverRun> {
  const title = 'SENTINEL FAILOVER';
  const topology = await SentinelTopology.start({ downAfterMilliseconds: 5000 });
  const client = new Redis({
    ...topology.sentinelClientOptions(),
    // Reconnecting makes the client ask the Sentinels for the primary again; 2 also resends the failed command.
    reconnectOnError: (error) => (/^(READONLY|NOREPLICAS)/.test(error.message) ? 2 : false),
  });
  client.on('error', () => undefined);
  const writer = SwitchoverWriter.start({
    route: new SentinelRoute(client),
    keyPrefix: 'bench-sentinel',
    waitTimeoutMilliseconds: parameters.waitTimeoutMilliseconds,
  });
  const startedAt: number[] = [];
  const completed: boolean[] = [];
  try {
    for (const server of topology.servers) {
      const admin = topology.admin(server.host, server.port, server.password);
      for (const [name, value] of Object.entries(SWITCHOVER_SERVER_CONFIG)) await admin.config('SET', name, value);
    }
    const admins = topology.servers.map((server) => topology.admin(server.host, server.port, server.password));
    const hosts = topology.servers.map((server) => server.host);
    // Settled as for the other setups (one primary, both replicas online and caught up), and every Sentinel names it.
    const settled = async () => {
      const index = await waitUntilReplicationSettled(admins, hosts, 60_000);
      const agreed = await topology.agreedPrimary(60_000);
      if (agreed.host !== hosts[index]) throw new Error(`Sentinels name ${agreed.host}, the servers ${hosts[index]}`);
      return agreed;
    };
    for (let index = 1; index <= parameters.sentinelSwitchovers; index++) {
      const primary = await settled();
      await writesFlow(writer, parameters.writesBetween);
      const sentinel = topology.sentinels[index % topology.sentinels.length]!;
      const started = performance.now();
      startedAt.push(started);
      try {
        await topology.admin(sentinel.host, SENTINEL_PORT).call('SENTINEL', 'FAILOVER', MONITORED_PRIMARY_NAME);
        const promoted = await waitUntil(
          'the Sentinels agree on a new primary',
          async () => {
            const agreed = await topology.agreedPrimary(1000);
            return agreed.host !== primary.host ? agreed : false;
          },
          // Sentinel gives up a failover after its failover-timeout (10 s here): by then it has failed.
          { timeoutMilliseconds: 15_000, pollIntervalMilliseconds: 20 },
        );
        completed.push(true);
        log(`${title} #${String(index).padStart(2)}: ${primary.host} -> ${promoted.host} agreed after ${Math.round(performance.now() - started)} ms`);
      } catch (error) {
        completed.push(false);
        log(`${title} #${String(index).padStart(2)}: failed: ${error instanceof Error ? error.message : String(error)}`);
        const events = sentinel.recentOutput.trim().split('\n').slice(-12);
        log(`${title} #${String(index).padStart(2)}: last events of the Sentinel asked:\n    ${events.join('\n    ')}`);
      }
    }
    const finalPrimary = await settled();
    await writesFlow(writer, parameters.writesBetween);
    const endedAt = performance.now();
    await writer.stop();
    const lost = await findLostWrites(topology.admin(finalPrimary.host, finalPrimary.port, finalPrimary.password), writer);
    reportWrites(title, writer, lost, startedAt);
    return summarizeRun(title, writer, startedAt, completed, endedAt, lost);
  } finally {
    await writer.stop();
    client.disconnect();
    await topology.stop();
  }
}

async function main(): Promise<void> {
  const parameters = parseParameters(process.argv.slice(2));
  const argumentsGiven = process.argv.slice(2);
  console.log(`command: npm run bench:switchover${argumentsGiven.length > 0 ? ` -- ${argumentsGiven.join(' ')}` : ''}`);
  console.log(
    `parameters: ${parameters.switchovers} switchovers each for redkite and FAILOVER TO, ${parameters.sentinelSwitchovers} for Sentinel; setups ${parameters.setups.join(', ')}; writer SET + WAIT 1 ` +
      `${parameters.waitTimeoutMilliseconds}; switchover timeout ${parameters.switchoverTimeoutMilliseconds} ms; ` +
      `${parameters.writesBetween} acknowledged writes between switchovers once settled`,
  );
  console.log(
    `servers: redis-server on loopback, primary + 2 replicas, ${Object.entries(SWITCHOVER_SERVER_CONFIG)
      .map(([name, value]) => `${name} ${value}`)
      .join(', ')}, repl-ping-replica-period 1, repl-diskless-sync-delay 0; Sentinel: 3 sentinels, quorum 2`,
  );
  console.log(`machine: ${cpus().length} cores, ${describeLoad()} at start`);
  const runs: SwitchoverRun[] = [];
  for (const setup of parameters.setups) {
    log(`${setup}: starting`);
    if (setup === 'redkite') runs.push(await runRoleFollowing('redkite (pause-and-promote)', 'pause-and-promote', parameters));
    if (setup === 'failover') runs.push(await runRoleFollowing('Redis FAILOVER TO', 'failover-command', parameters));
    if (setup === 'sentinel') runs.push(await runSentinel(parameters));
  }
  console.log('');
  for (const line of formatSwitchoverTable(runs)) console.log(line);
  console.log(`\nwrite pause: longest gap between two acknowledged writes around each switchover; ${describeLoad()} at end; ` +
    `${((performance.now() - benchStarted) / 1000).toFixed(0)} s in all`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
