import { endpointAddress, type RedisEndpoint } from '../../../operator/redis';
import { verifyAcknowledgedKeys } from '../acknowledged-writer';
import type { FaultTimeline, FaultWindow } from './fault-timeline';
import type { AcknowledgementMode, HistoryWriter, RecordedWrite } from './history-writer';
import { messageOf, openConnection } from './redis-connection';
import type { RoleSampler, RoleSummary } from './role-sampler';

/** Options of {@link checkHistory}. */
export interface HistoryCheckOptions {
  /** Stopped here if still running. */
  readonly writers: readonly HistoryWriter[];
  /** Stopped here if still running. */
  readonly sampler: RoleSampler;
  /** The primary once the cluster is healthy again: every acknowledged key must read back from it. */
  readonly finalPrimary: RedisEndpoint;
  /** The faults injected, so violations name the fault they fell into. @default none */
  readonly faults?: FaultTimeline | readonly FaultWindow[];
  /** Lost writes listed in full (the rest are counted). @default 5 */
  readonly lostExamples?: number;
  /** Keys per MGET. @default 500 */
  readonly batchSize?: number;
}

/** An acknowledged write the final primary does not hold. */
export interface LostWrite extends RecordedWrite {
  readonly writer: string;
  readonly acknowledgement: AcknowledgementMode;
  /** What the final primary holds under the key (null: nothing). */
  readonly found: string | null;
}

/** One writer's counts. */
export interface WriterFigures {
  readonly name: string;
  readonly acknowledgement: AcknowledgementMode;
  readonly acknowledged: number;
  /** Its acknowledged writes the final primary does not hold. */
  readonly lost: number;
  readonly unacknowledged: number;
  readonly failed: number;
  readonly connections: number;
}

/** What {@link checkHistory} found. */
export interface HistoryResult extends RoleSummary {
  /** Acknowledged writes of every writer. */
  readonly acknowledged: number;
  /** Acknowledged writes missing from (or different on) the final primary. */
  readonly lost: number;
  /** The first lost writes, by acknowledgement time. */
  readonly lostWrites: readonly LostWrite[];
  readonly writers: readonly WriterFigures[];
  readonly faults: readonly FaultWindow[];
  /** `host:port` of the final primary. */
  readonly finalPrimary: string;
  /** Latest known addresses of the sampled members, for messages. */
  readonly memberAddresses: Readonly<Record<string, string>>;
}

/**
 * Stops the writers and the sampler, then reads every acknowledged key back from the final primary (which must
 * report role master) and puts the figures together. Call it once the cluster is healthy again.
 */
export async function checkHistory(options: HistoryCheckOptions): Promise<HistoryResult> {
  await Promise.all([...options.writers.map((writer) => writer.stop()), options.sampler.stop()]);
  const writes = options.writers
    .flatMap((writer) => writer.acknowledged.map((write) => ({ ...write, writer: writer.name, acknowledgement: writer.acknowledgement })))
    .sort((left, right) => left.acknowledgedAt - right.acknowledgedAt);
  let missing: Array<(typeof writes)[number]> = [];
  let lostWrites: LostWrite[] = [];
  const reader = await openConnection(options.finalPrimary, 5000, 30_000).catch((error: unknown) => {
    throw new Error(`cannot read the history back from ${endpointAddress(options.finalPrimary)}: ${messageOf(error)}`, { cause: error });
  });
  try {
    const role = ((await reader.call('ROLE')) as unknown[])[0];
    if (role !== 'master') {
      throw new Error(`the final primary ${endpointAddress(options.finalPrimary)} reports role ${String(role)}: the cluster is not healthy yet`);
    }
    missing = await verifyAcknowledgedKeys(reader, writes, options.batchSize);
    const examples = missing.slice(0, options.lostExamples ?? 5);
    const found = examples.length === 0 ? [] : await reader.mget(...examples.map((write) => write.key));
    lostWrites = examples.map((write, index) => ({ ...write, found: found[index] ?? null }));
  } finally {
    reader.disconnect();
  }
  const summary = options.sampler.summary();
  const faults = options.faults === undefined ? [] : 'faults' in options.faults ? options.faults.faults : options.faults;
  const memberAddresses: Record<string, string> = {};
  for (const member of Object.keys(summary.samplesPerMember)) {
    const address = options.sampler.addressOf(member);
    if (address !== undefined) memberAddresses[member] = address;
  }
  return {
    ...summary,
    startedAt: Math.min(summary.startedAt, ...options.writers.map((writer) => writer.startedAt)),
    acknowledged: writes.length,
    lost: missing.length,
    lostWrites,
    writers: options.writers.map((writer) => ({
      name: writer.name,
      acknowledgement: writer.acknowledgement,
      acknowledged: writer.acknowledged.length,
      lost: missing.filter((write) => write.writer === writer.name).length,
      unacknowledged: writer.unacknowledgedWrites,
      failed: writer.failedWrites,
      connections: writer.connections.length,
    })),
    faults: [...faults],
    finalPrimary: endpointAddress(options.finalPrimary),
    memberAddresses,
  };
}
