import { setTimeout as delay } from 'node:timers/promises';
import {
  FaultTimeline,
  HistoryWriter,
  RoleSampler,
  checkHistory,
  historyViolations,
  type HistoryResult,
  type RoleSummary,
} from '../../test/support/history';
import { waitUntil } from '../../test/support/wait-until';
import { ChaosCluster, type ChaosClusterOptions } from './chaos-cluster';
import type { FaultKind } from './chaos-faults';
import type { ScheduledFault } from './chaos-schedule';

/** Options of {@link runSchedule}. */
export interface ScheduleRunOptions extends Omit<ChaosClusterOptions, 'namespacePrefix'> {
  /** 1-based, for names and logs. */
  readonly index: number;
  readonly seed: number;
  readonly schedule: readonly ScheduledFault[];
  readonly kinds: readonly FaultKind[];
  readonly durationMilliseconds: number;
  /** How long the cluster may take to be healthy again once every fault is healed. */
  readonly recoveryTimeoutMilliseconds: number;
}

/** A fault the schedule could not inject (nothing to act on, or the agent refused). */
export interface SkippedFault {
  readonly kind: string;
  readonly reason: string;
}

/** What one schedule measured. */
export interface ScheduleResult {
  readonly index: number;
  readonly namespace: string | undefined;
  /** Faults injected, by kind. */
  readonly injected: Readonly<Record<string, number>>;
  readonly skipped: readonly SkippedFault[];
  /** Acknowledged writes of every writer (known also when no read-back was possible). */
  readonly acknowledged: number;
  /** The full check, when the cluster came back healthy. */
  readonly history: HistoryResult | undefined;
  /** The sampler's figures (also when the cluster did not recover and no read-back was possible). */
  readonly roles: RoleSummary | undefined;
  /** Broken limits (lost writes, two writable primaries), failure to recover, or an error of the bench itself. */
  readonly problems: readonly string[];
  /**
   * The cluster did not recover because the controller waits, as invariant I1 requires, for a member whose position
   * it cannot know (e.g. every replica restarted from AOF after the primary lost its volume): a human must choose
   * (the force-primary annotation). Availability lost, not safety: reported apart from `problems`.
   */
  readonly heldForHuman: string | undefined;
  readonly controllerLogFile: string | undefined;
}

/**
 * Runs one schedule: a fresh cluster, three writers on the primary Service (SET + WAIT 1 reconnecting, min-replicas
 * reconnecting, SET + WAIT 1 on a held connection) and the ROLE sampler; the faults at their times, each lasting one
 * healed after its hold; then everything healed, the cluster healthy again, and every acknowledged key read back.
 */
export async function runSchedule(options: ScheduleRunOptions): Promise<ScheduleResult> {
  const { log } = options;
  const injected: Record<string, number> = {};
  const skipped: SkippedFault[] = [];
  const problems: string[] = [];
  let heldForHuman: string | undefined;
  let cluster: ChaosCluster | undefined;
  let writers: HistoryWriter[] = [];
  let sampler: RoleSampler | undefined;
  let history: HistoryResult | undefined;
  try {
    cluster = await ChaosCluster.create({ ...options, namespacePrefix: `chaos-${options.index}` });
    const created = cluster;
    log(`schedule ${options.index}: RedisCluster ${created.namespace}/${created.name} healthy; controller log ${created.controllerLogFile}`);
    const service = await created.serviceEndpoint();
    const prefix = `chaos-${options.seed}-${options.index}`;
    writers = [
      HistoryWriter.start({ name: `${prefix}-wait`, address: () => service, acknowledgement: 'wait' }),
      HistoryWriter.start({ name: `${prefix}-min-replicas`, address: () => service, acknowledgement: 'min-replicas' }),
      HistoryWriter.start({ name: `${prefix}-held`, address: () => service, acknowledgement: 'wait', connection: 'hold' }),
    ];
    const reconnecting = writers.slice(0, 2);
    sampler = RoleSampler.start({ members: () => created.members(service.password!), intervalMilliseconds: 20 });
    await waitUntil('the writers have 10 acknowledged writes each', () => writers.every((writer) => writer.acknowledged.length >= 10), {
      timeoutMilliseconds: 60_000,
    });

    const faults = new FaultTimeline();
    const context = created.faultContext();
    const startedAt = Date.now();
    const tasks = options.schedule.map(async (planned) => {
      await delay(Math.max(0, startedAt + planned.atMilliseconds - Date.now()));
      const kind = options.kinds.find((candidate) => candidate.name === planned.kind)!;
      try {
        const requestedAt = Date.now();
        const fault = await kind.inject(context, planned.choice);
        if (typeof fault === 'string') {
          skipped.push({ kind: planned.kind, reason: fault });
          return;
        }
        injected[planned.kind] = (injected[planned.kind] ?? 0) + 1;
        log(`schedule ${options.index} +${((Date.now() - startedAt) / 1000).toFixed(1)} s: ${planned.kind} ${fault.target}${fault.heal ? ` for ${planned.holdMilliseconds} ms` : ''}`);
        if (fault.heal === undefined) {
          faults.instant(planned.kind, fault.target, requestedAt);
          return;
        }
        const end = faults.begin(planned.kind, fault.target, requestedAt);
        await delay(planned.holdMilliseconds);
        await fault.heal().catch((error: unknown) => log(`schedule ${options.index}: healing ${planned.kind} ${fault.target} failed: ${(error as Error).message}`));
        end();
      } catch (error) {
        skipped.push({ kind: planned.kind, reason: (error as Error).message.split('\n')[0]! });
      }
    });
    await delay(Math.max(0, startedAt + options.durationMilliseconds - Date.now()));
    await Promise.all(tasks);
    await created.healEverything();

    if (created.controllerExitCode !== null) problems.push(`the controller exited by itself (code ${created.controllerExitCode}); log ${created.controllerLogFile}`);
    let healthy;
    try {
      healthy = await created.waitHealthy(options.recoveryTimeoutMilliseconds);
    } catch (error) {
      const reason = (error as Error).message.split('\n')[0]!;
      if (reason.includes('not failing over: waiting for')) heldForHuman = reason.slice(reason.indexOf('not failing over:'));
      else problems.push(`did not recover within ${options.recoveryTimeoutMilliseconds / 1000} s, so no read-back: ${reason}`);
      await sampler.stop();
      const roles = sampler.summary();
      if (roles.maxWritablePrimaries > 1) problems.push(`- ${roles.maxWritablePrimaries} writable primaries at once: ${roles.maxWritablePrimariesWindow?.members.join(', ')}`);
    }
    if (healthy !== undefined) {
      const healedAt = Date.now();
      await waitUntil('the reconnecting writers acknowledge a write after the recovery', () => reconnecting.every((writer) => writer.firstAcknowledgedSentAfter(healedAt)), {
        timeoutMilliseconds: 30_000,
      }).catch(() => problems.push('a reconnecting writer had no acknowledged write within 30 s of the recovery'));
      history = await checkHistory({ writers, sampler, finalPrimary: healthy.primaryEndpoint, faults });
      // Writes acknowledged only by min-replicas-to-write are reported, not failed on: an isolated primary answers OK
      // for up to min-replicas-max-lag seconds with no replica holding the write, which no failover can keep
      // (docs/failover.md, "The promise"). WAIT-acknowledged writes and writable primaries are the invariants.
      const minReplicasLost = history.writers.filter((writer) => writer.acknowledgement === 'min-replicas').reduce((sum, writer) => sum + writer.lost, 0);
      problems.push(...historyViolations(history, { lost: minReplicasLost }));
    }
  } catch (error) {
    problems.push(`bench error: ${(error as Error).message.split('\n')[0]}`);
    log(`schedule ${options.index}: ${(error as Error).stack ?? String(error)}`);
  } finally {
    await Promise.all([...writers.map((writer) => writer.stop()), sampler?.stop()]);
    await cluster?.delete();
  }
  return {
    index: options.index,
    namespace: cluster?.namespace,
    injected,
    skipped,
    acknowledged: writers.reduce((sum, writer) => sum + writer.acknowledged.length, 0),
    history,
    roles: sampler?.summary(),
    problems,
    heldForHuman,
    controllerLogFile: cluster?.controllerLogFile,
  };
}
