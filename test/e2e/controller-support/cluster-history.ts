import { REDIS_PORT } from '../../../src/naming';
import { HistoryWriter, RoleSampler, assertHistory, checkHistory, formatHistory, type ConnectionPolicy, type HistoryResult, type SampledMember } from '../../support/history';
import { waitFor } from '../support';
import type { RedisClusterApi } from './redis-cluster-api';

/** What a safety test records about one RedisCluster while it injects faults. */
export interface ClusterHistory {
  readonly writers: readonly HistoryWriter[];
  /**
   * Waits until every writer (or only the reconnecting one, the first: a writer holding its connection to a demoted
   * primary is refused until something closes it) has `count` more acknowledged writes than now.
   */
  moreAcknowledged(count: number, description: string, which?: 'all' | 'reconnecting'): Promise<void>;
  /** Waits for the cluster to be Ready, then checks every acknowledged write and the writable-primary count. */
  verify(description: string): Promise<HistoryResult>;
}

/**
 * Starts writers through the cluster's primary Service (`SET` + `WAIT 1`; one reconnecting, optionally one holding
 * its connection as a client behind kube-proxy does) and a ROLE sampler on every pod, counting writable primaries
 * from Redis itself. `password` is asked again for every new connection (it changes in rotation tests).
 */
export async function recordClusterHistory(
  clusters: RedisClusterApi,
  cluster: string,
  password: () => string,
  options: { readonly connections?: readonly ConnectionPolicy[] } = {},
): Promise<ClusterHistory> {
  const serviceHost = await clusters.serviceAddress(cluster);
  const members = async (): Promise<SampledMember[]> => {
    const pods = await clusters.pods(cluster);
    return pods.flatMap((pod) => (pod.status?.podIP ? [{ name: pod.metadata!.name!, host: pod.status.podIP, port: REDIS_PORT, password: password() }] : []));
  };
  const sampler = RoleSampler.start({ members });
  const writers = (options.connections ?? ['reconnect']).map((connection) =>
    HistoryWriter.start({ name: `${cluster}-${connection}`, address: () => ({ host: serviceHost, port: REDIS_PORT, password: password() }), connection, waitTimeoutMilliseconds: 500 }),
  );
  return {
    writers,
    moreAcknowledged: async (count, description, which = 'all') => {
      const waitedFor = which === 'all' ? writers : writers.slice(0, 1);
      const targets = waitedFor.map((writer) => writer.acknowledged.length + count);
      await waitFor(() => waitedFor.every((writer, index) => writer.acknowledged.length >= targets[index]!), { description, timeoutMs: 90_000, intervalMs: 100 });
    },
    verify: async (description) => {
      const status = await clusters.waitReady(cluster, `${cluster} Ready after ${description}`, { timeoutMs: 180_000 });
      const result = await checkHistory({ writers, sampler, finalPrimary: { host: await clusters.podIp(status.primary!), port: REDIS_PORT, password: password() } });
      // Printed so a run shows what was measured, not only that it passed.
      console.log(`${description}:\n  ${formatHistory(result).join('\n  ')}`);
      assertHistory(result);
      return result;
    },
  };
}
