/**
 * Baseline: how long Redis Sentinel leaves clients without an acknowledged write after the primary is
 * SIGKILLed, and how many acknowledged writes it loses. redkite's failover is measured the same way.
 *
 *   npx tsx bench/sentinel-baseline.ts [downAfterMilliseconds=1000] [trials=10]
 */
import Redis from 'ioredis';
import { AcknowledgedWriter, verifyAcknowledgedKeys } from '../test/support/acknowledged-writer';
import { waitUntil } from '../test/support/wait-until';
import { SentinelTopology } from './support/sentinel-topology';
import { median, percentile } from './support/statistics';
import type { FailoverTrial } from './support/failover-report';

/** Options of {@link runSentinelTrials}. */
export interface SentinelTrialOptions {
  /** Sentinel's `down-after-milliseconds`: compare with redkite's `failureDetectionMilliseconds`. */
  readonly downAfterMilliseconds: number;
  readonly trials: number;
  /** `WAIT 1 <ms>` of the writer. @default 300 */
  readonly waitTimeoutMilliseconds?: number;
  /** Called after each trial, e.g. to print progress. @default - nothing */
  readonly onTrial?: (trial: SentinelTrialResult) => void;
}

/** Figures of one trial: the same shape as redkite's, so the failover bench reports both alike. */
export type SentinelTrialResult = FailoverTrial;

/** Runs `trials` kill-and-failover trials on one Sentinel topology and returns their figures. */
export async function runSentinelTrials(options: SentinelTrialOptions): Promise<SentinelTrialResult[]> {
  const topology = await SentinelTopology.start({ downAfterMilliseconds: options.downAfterMilliseconds });
  const results: SentinelTrialResult[] = [];
  try {
    for (let trial = 1; trial <= options.trials; trial++) {
      const result = await runTrial(topology, trial, options);
      results.push(result);
      options.onTrial?.(result);
    }
  } finally {
    await topology.stop();
  }
  return results;
}

async function runTrial(
  topology: SentinelTopology,
  trial: number,
  options: SentinelTrialOptions,
): Promise<SentinelTrialResult> {
  const killed = await topology.agreedPrimary();
  const client = new Redis(topology.sentinelClientOptions());
  client.on('error', () => undefined);
  const writer = AcknowledgedWriter.start({
    client,
    keyPrefix: `trial-${trial}`,
    waitTimeoutMilliseconds: options.waitTimeoutMilliseconds ?? 300,
  });
  try {
    await waitUntil('the writer has 20 acknowledged writes', () => writer.acknowledged.length >= 20);
    const killedAt = Date.now();
    await killed.kill('SIGKILL');
    const firstAfterKill = await waitUntil(
      'a write sent after the kill is acknowledged',
      () => writer.firstAcknowledgedStartedAfter(killedAt),
      { timeoutMilliseconds: options.downAfterMilliseconds + 60_000, pollIntervalMilliseconds: 5 },
    ).catch(async (error: unknown) => {
      throw new Error(
        `trial ${trial}: no acknowledged write after killing ${killed.host}; ${writer.errors.length} write errors ` +
          `(last: ${writer.errors.at(-1)?.message ?? 'none'}), ${writer.unacknowledgedWrites} unacknowledged; ` +
          `Sentinel state: ${await topology.describe()}`,
        { cause: error },
      );
    });
    const acknowledgedBefore = writer.acknowledged.length;
    await waitUntil('20 more writes are acknowledged', () => writer.acknowledged.length >= acknowledgedBefore + 20);
    await writer.stop();
    // Where the Sentinels settle may differ from their first promotion; the restarted process joins that.
    const promoted = await topology.agreedPrimary();
    await killed.restart({ replicaOf: { host: promoted.host, port: promoted.port } });
    const newPrimary = await topology.waitUntilHealthy(60_000);
    const reader = topology.admin(newPrimary.host, newPrimary.port, newPrimary.password);
    const lost = await verifyAcknowledgedKeys(reader, writer.acknowledged);
    return {
      trial,
      killedPrimary: killed.host,
      newPrimary: newPrimary.host,
      failoverMilliseconds: firstAfterKill.acknowledgedAt - killedAt,
      acknowledgedWrites: writer.acknowledged.length,
      lostAcknowledgedWrites: lost.length,
      writeErrors: writer.errors.length,
    };
  } finally {
    await writer.stop();
    client.disconnect();
  }
}

/** Median, p95 and losses over the trials. */
export function summarizeTrials(results: readonly SentinelTrialResult[]): {
  readonly medianFailoverMilliseconds: number;
  readonly p95FailoverMilliseconds: number;
  readonly lostAcknowledgedWrites: number;
  readonly acknowledgedWrites: number;
} {
  const times = results.map((result) => result.failoverMilliseconds);
  return {
    medianFailoverMilliseconds: median(times),
    p95FailoverMilliseconds: percentile(times, 95),
    lostAcknowledgedWrites: results.reduce((sum, result) => sum + result.lostAcknowledgedWrites, 0),
    acknowledgedWrites: results.reduce((sum, result) => sum + result.acknowledgedWrites, 0),
  };
}

async function main(): Promise<void> {
  const downAfterMilliseconds = Number(process.argv[2] ?? 1000);
  const trials = Number(process.argv[3] ?? 10);
  console.log(`Redis Sentinel baseline: 3 sentinels, quorum 2, down-after ${downAfterMilliseconds} ms, ${trials} trials`);
  const results = await runSentinelTrials({
    downAfterMilliseconds,
    trials,
    onTrial: (result) =>
      console.log(
        `trial ${result.trial}: ${result.killedPrimary} -> ${result.newPrimary} in ${result.failoverMilliseconds} ms, ` +
          `${result.lostAcknowledgedWrites}/${result.acknowledgedWrites} acknowledged writes lost, ${result.writeErrors} write errors`,
      ),
  });
  const summary = summarizeTrials(results);
  console.log(
    `median ${summary.medianFailoverMilliseconds} ms, p95 ${summary.p95FailoverMilliseconds} ms, ` +
      `lost ${summary.lostAcknowledgedWrites} of ${summary.acknowledgedWrites} acknowledged writes`,
  );
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
