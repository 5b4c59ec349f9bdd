import type { ApiCall, JournalEntry } from './call-journal';
import type { ClusterFixture, ClusterFixtureOptions } from './cluster-fixture';
import { ReconcilerHarness } from './reconciler-harness';

/**
 * How long a primary must stay silent before a failover with the defaults: 2 s detection, but with
 * `min-replicas-to-write 1` at least `min-replicas-max-lag` (1 s) + 2 s, so the old primary refuses writes first (I2).
 */
export const FAILOVER_AFTER_MILLISECONDS = 3000;

/** Reconciles the healthy cluster once, stops its primary's Redis, and reconciles again: the detection timer runs. */
export async function primaryStopsAnswering(harness: ReconcilerHarness, cluster: ClusterFixture, ordinal = 0): Promise<void> {
  await harness.reconcile(cluster);
  cluster.stopAnswering(ordinal);
  await harness.reconcile(cluster);
}

/** As {@link primaryStopsAnswering}, then the failover wait passes: the next reconcile may fail over. */
export async function primaryDownPastDetection(harness: ReconcilerHarness, cluster: ClusterFixture, ordinal = 0): Promise<void> {
  await primaryStopsAnswering(harness, cluster, ordinal);
  harness.clocks.advance(FAILOVER_AFTER_MILLISECONDS);
}

/** A new harness with one healthy cluster whose primary has been silent past detection: the next pass fails over. */
export async function clusterReadyToFailOver(options: ClusterFixtureOptions = {}): Promise<{ harness: ReconcilerHarness; cluster: ClusterFixture }> {
  const harness = new ReconcilerHarness();
  const cluster = harness.addCluster(options);
  await primaryDownPastDetection(harness, cluster);
  return { harness, cluster };
}

/**
 * The record writes (I5), in order: status patches of the primary record alone. Every status write also carries the
 * record unchanged; those are not decisions.
 */
export function recordWrites(entries: readonly JournalEntry[]): ApiCall[] {
  return entries.filter((entry): entry is ApiCall => entry.system === 'api' && entry.verb === 'patchStatus' && hasRecord(entry.body));
}

/** `{primary, epoch}` of each record written. */
export function recordsWritten(entries: readonly JournalEntry[], outcome: ApiCall['outcome'] = 'ok'): Array<{ primary: string; epoch: number }> {
  return recordWrites(entries)
    .filter((call) => call.outcome === outcome)
    .map((call) => {
      const record = (call.body as { primaryRecord: { primary: string; epoch: number } }).primaryRecord;
      return { primary: record.primary, epoch: record.epoch };
    });
}

/** Redis commands that change who replicates from whom (probes and CONFIG SET excluded). */
export function isTopologyCommand(entry: JournalEntry): boolean {
  return entry.system === 'redis' && entry.aborted !== true && ['REPLICAOF', 'REPLICAOF NO ONE', 'SWITCHOVER'].includes(entry.command);
}

/** The `REPLICAOF NO ONE` commands, by address. */
export function promotions(entries: readonly JournalEntry[]): string[] {
  return entries.flatMap((entry) => (entry.system === 'redis' && entry.command === 'REPLICAOF NO ONE' ? [entry.address] : []));
}

function hasRecord(body: unknown): boolean {
  return typeof body === 'object' && body !== null && Object.keys(body).join() === 'primaryRecord';
}
