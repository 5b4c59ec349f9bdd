import { randomBytes } from 'node:crypto';
import { REDIS_CLUSTER_API_VERSION, REDIS_CLUSTER_KIND, resolveSpec, type RedisClusterSpec } from '../../src/api';
import { selectorLabels } from '../../src/naming';
import { synthesizeRedisClusterWorkload } from '../../src/workload/synthesize-workload';
import type { PlainObject } from './convergence-kube';

/**
 * How the pods of a run are backed:
 * - `real`: the official image, so the node agent runs a real redis-server per pod with its exec probes;
 * - `noProcess`: an image the node agent refuses to run (it runs Redis images only), so every pod exists, is bound
 *   and has an IP, but no process and never becomes Ready. Used where the machine cannot hold the real pods.
 */
export type PodBacking = 'real' | 'noProcess';

/** Not a Redis image, so the node agent reports `ImageNotRunnable` and starts nothing. */
export const NO_PROCESS_IMAGE = 'bench.invalid/redkite-bench/no-process:7.2';

/** One pod per cluster: the most clusters per pod the machine can run, and no replication to wait for. */
export function benchSpec(backing: PodBacking): RedisClusterSpec {
  return backing === 'real' ? { replicas: 1 } : { replicas: 1, image: NO_PROCESS_IMAGE };
}

export function clusterNames(count: number): string[] {
  const width = String(count - 1).length;
  return Array.from({ length: count }, (_, index) => `bench-${String(index).padStart(width, '0')}`);
}

/** The RedisCluster a user would create. */
export function redisClusterObject(name: string, namespace: string, backing: PodBacking): PlainObject {
  return { apiVersion: REDIS_CLUSTER_API_VERSION, kind: REDIS_CLUSTER_KIND, metadata: { name, namespace }, spec: benchSpec(backing) };
}

/**
 * What a plain client applies for one cluster without the controller: the workload construct's manifests (the same
 * function the controller calls, without owner references) and a password Secret, as the controller would generate.
 */
export function baselineObjects(name: string, namespace: string, backing: PodBacking): PlainObject[] {
  const spec = benchSpec(backing);
  const workload = synthesizeRedisClusterWorkload({ name, namespace, spec });
  const secret: PlainObject = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: workload.passwordSecretName, namespace, labels: selectorLabels(name) },
    data: { [resolveSpec(spec).auth.passwordSecretKey]: Buffer.from(randomBytes(24).toString('base64url')).toString('base64') },
  };
  // The Secret first: the pods read the password from it.
  return [secret, ...(workload.manifests as PlainObject[])];
}

/** A kind the controller creates per cluster, and how many of it. */
export interface ChildKind {
  readonly apiVersion: string;
  readonly kind: string;
  readonly perCluster: number;
}

/** What the controller creates per cluster: the workload's manifests plus its Secret (the baseline's objects). */
export function expectedChildren(backing: PodBacking): ChildKind[] {
  const counts = new Map<string, ChildKind>();
  for (const object of baselineObjects('probe', 'probe', backing)) {
    const key = `${object.apiVersion}/${object.kind}`;
    counts.set(key, { apiVersion: object.apiVersion, kind: object.kind, perCluster: (counts.get(key)?.perCluster ?? 0) + 1 });
  }
  return [...counts.values()];
}
