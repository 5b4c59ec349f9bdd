import { waitFor } from '../support';
import type { ClusterStatus, RedisClusterApi } from './redis-cluster-api';

/** The durable primary decision the controller keeps in status (docs/failover.md, I5). */
export interface PrimaryRecordView {
  readonly primary: string;
  readonly epoch: number;
  readonly replicationId?: string;
}

export function recordOf(status: ClusterStatus): PrimaryRecordView | undefined {
  return (status as { primaryRecord?: PrimaryRecordView }).primaryRecord;
}

/** A cluster one test owns: created Ready, its primary, its replicas, its password; deleted by {@link deleteCluster}. */
export interface OwnedCluster {
  readonly name: string;
  readonly status: ClusterStatus;
  readonly password: string;
  readonly replicas: readonly string[];
}

export async function readyCluster(clusters: RedisClusterApi, name: string, spec: Record<string, unknown> = {}): Promise<OwnedCluster> {
  const replicaCount = (spec.replicas as number | undefined) ?? 3;
  await clusters.create(name, { replicas: replicaCount, ...spec });
  const status = await clusters.waitReady(name, `${name} Ready`);
  const replicas = Array.from({ length: replicaCount }, (_, ordinal) => `${name}-${ordinal}`).filter((pod) => pod !== status.primary);
  return { name, status, password: await clusters.password(name), replicas };
}

export async function deleteCluster(clusters: RedisClusterApi, name: string): Promise<void> {
  await clusters.delete(name);
  await waitFor(async () => !(await clusters.exists(name)), { description: `${name} deleted (finalizer removed)`, timeoutMs: 60_000 });
}

/** Waits until the recorded epoch is above `epoch` (a failover or switchover happened) and returns the record. */
export function waitForNewEpoch(clusters: RedisClusterApi, name: string, epoch: number, description: string): Promise<PrimaryRecordView> {
  return waitFor(async () => {
    const record = recordOf(await clusters.status(name));
    return record && record.epoch > epoch ? record : undefined;
  }, { description, timeoutMs: 90_000, intervalMs: 200 });
}
