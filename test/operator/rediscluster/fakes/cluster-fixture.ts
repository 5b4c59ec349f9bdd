import type { ObjectKey, ObjectReference } from '../../../../operator/runtime';
import { REDIS_CLUSTER_GVK, type PodObject, type RedisClusterObject } from '../../../../operator/rediscluster/cluster-object';
import { desiredState } from '../../../../operator/rediscluster/desired-state';
import { resolveSpec, type RedisClusterSpec, type RedisClusterStatus } from '../../../../src/api';
import { FINALIZER, ROLE_LABEL, ROLE_PRIMARY, ROLE_REPLICA, selectorLabels } from '../../../../src/naming';
import type { FakeKubernetes } from './fake-kubernetes';
import type { FakeRedis } from './fake-redis';
import { FAKE_REDIS_PORT, fakeRedisServer, type FakeRedisServer } from './fake-redis-server';

export interface ClusterFixtureOptions {
  /** @default 'shop' */
  readonly namespace?: string;
  /** @default 'cache' */
  readonly name?: string;
  /** Pods that exist, ordinals 0..pods-1. @default 3 */
  readonly pods?: number;
  /** The RedisCluster's spec; `replicas` defaults to `pods`. @default {} */
  readonly spec?: RedisClusterSpec;
  /** Ordinal of the primary. @default 0 */
  readonly primary?: number;
  /** Whether status already holds the primary record (a cluster this controller version has managed). @default true */
  readonly recorded?: boolean;
  /**
   * A new cluster whose pods just started: no record, no role labels, every Redis a fenced replica holding nothing
   * (`replicaof 127.0.0.1 1`, as every pod boots). Overrides `recorded` and `primary`. @default false
   */
  readonly fresh?: boolean;
  /** Epoch of that record. @default 1 */
  readonly epoch?: number;
  /** Third octet of the pods' IPs (`10.0.<subnet>.<ordinal + 10>`), so clusters do not share addresses. @default 0 */
  readonly subnet?: number;
}

/** The password every fixture's Secret holds and its servers accept. */
export const FIXTURE_PASSWORD = 'fixture-password';

/**
 * One RedisCluster seeded into the fake apiserver and the fake Redis fleet as a healthy cluster would be: the
 * object (with the finalizer and, by default, its primary record), its children as the controller applies them, its
 * password Secret, Running and Ready pods labelled by role, a primary holding data and replicas linked to it.
 */
export class ClusterFixture {
  readonly namespace: string;
  readonly name: string;
  readonly key: ObjectKey;
  readonly podCount: number;
  private readonly subnet: number;

  constructor(
    private readonly kube: FakeKubernetes,
    private readonly redis: FakeRedis,
    options: ClusterFixtureOptions = {},
  ) {
    this.namespace = options.namespace ?? 'shop';
    this.name = options.name ?? 'cache';
    this.key = { namespace: this.namespace, name: this.name };
    this.podCount = options.pods ?? 3;
    this.subnet = options.subnet ?? 0;
    const primary = options.primary ?? 0;
    const spec: RedisClusterSpec = { replicas: this.podCount, ...options.spec };
    const history = `history-${this.namespace}-${this.name}`;
    const status: RedisClusterStatus | undefined =
      options.recorded === false || options.fresh === true ? undefined : { primaryRecord: { primary: this.podName(primary), epoch: options.epoch ?? 1, replicationId: history } };
    const cluster = this.kube.put<RedisClusterObject>({
      ...REDIS_CLUSTER_GVK,
      metadata: { name: this.name, namespace: this.namespace, finalizers: [FINALIZER] },
      spec,
      ...(status ? { status } : {}),
    });
    const desired = desiredState(cluster);
    for (const manifest of desired.manifests) this.kube.put(manifest as unknown as PodObject);
    this.kube.put({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: desired.passwordSecretName, namespace: this.namespace, labels: selectorLabels(this.name) },
      data: { [desired.spec.auth.passwordSecretKey]: Buffer.from(FIXTURE_PASSWORD).toString('base64') },
    });
    const minReplicasToWrite = String(resolveSpec(spec).minReplicasToWrite);
    for (let ordinal = 0; ordinal < this.podCount; ordinal += 1) {
      this.addPod(ordinal, options.fresh ? undefined : ordinal === primary ? ROLE_PRIMARY : ROLE_REPLICA);
      const server = this.redis.add(
        fakeRedisServer(this.address(ordinal), {
          runId: `run-${this.namespace}-${this.podName(ordinal)}`,
          passwords: new Set([FIXTURE_PASSWORD]),
          config: new Map([['min-replicas-to-write', minReplicasToWrite]]),
        }),
      );
      if (options.fresh) {
        Object.assign(server, { role: 'replica', primaryHost: '127.0.0.1', primaryPort: 1 });
      } else if (ordinal === primary) {
        Object.assign(server, { role: 'primary', replicationId: history, offset: 5000, keys: 100 });
      } else {
        Object.assign(server, { role: 'replica', primaryHost: this.address(primary), primaryPort: FAKE_REDIS_PORT });
      }
    }
  }

  podName(ordinal: number): string {
    return `${this.name}-${ordinal}`;
  }

  address(ordinal: number): string {
    return `10.0.${this.subnet}.${ordinal + 10}`;
  }

  server(ordinal: number): FakeRedisServer {
    return this.redis.server(this.address(ordinal));
  }

  reference(): ObjectReference {
    return { ...REDIS_CLUSTER_GVK, namespace: this.namespace, name: this.name };
  }

  podReference(ordinal: number): ObjectReference {
    return { apiVersion: 'v1', kind: 'Pod', namespace: this.namespace, name: this.podName(ordinal) };
  }

  /** The RedisCluster as the apiserver holds it now. */
  object(): RedisClusterObject {
    const object = this.kube.read<RedisClusterObject>(this.reference());
    if (object === undefined) throw new Error(`RedisCluster ${this.namespace}/${this.name} is gone`);
    return object;
  }

  status(): RedisClusterStatus {
    return this.object().status ?? {};
  }

  condition(type: string): { status: string; reason: string } | undefined {
    return this.status().conditions?.find((condition) => condition.type === type);
  }

  /** The pod's role label as the apiserver holds it. */
  roleLabel(ordinal: number): string | undefined {
    return this.kube.read<PodObject>(this.podReference(ordinal))?.metadata.labels?.[ROLE_LABEL];
  }

  /** Pods carrying the primary label right now. */
  labelledPrimaries(): string[] {
    return Array.from({ length: this.podCount }, (_, ordinal) => ordinal)
      .filter((ordinal) => this.roleLabel(ordinal) === ROLE_PRIMARY)
      .map((ordinal) => this.podName(ordinal));
  }

  /** The server stops answering (killed, frozen or cut off); its pod still runs. */
  stopAnswering(ordinal: number): void {
    this.server(ordinal).reachability = 'unreachable';
  }

  /** The pod is being deleted (a drain, a rollout): Terminating, still running and serving. */
  markTerminating(ordinal: number): void {
    this.kube.update<PodObject>(this.podReference(ordinal), (pod) => {
      pod.metadata.deletionTimestamp = '2030-01-01T00:00:00.000Z';
    });
  }

  /** Sets (or, with null, removes) an annotation on the RedisCluster as a user would. */
  annotate(name: string, value: string | null): void {
    this.kube.update<RedisClusterObject>(this.reference(), (object) => {
      const annotations = { ...object.metadata.annotations };
      if (value === null) delete annotations[name];
      else annotations[name] = value;
      object.metadata.annotations = annotations;
    });
  }

  /** Changes the RedisCluster's spec as a user would (`kubectl apply`). */
  updateSpec(change: Partial<RedisClusterSpec>): void {
    this.kube.update<RedisClusterObject>(this.reference(), (object) => {
      (object as { spec?: RedisClusterSpec }).spec = { ...object.spec, ...change };
    });
  }

  private addPod(ordinal: number, role: string | undefined): void {
    this.kube.put<PodObject>({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: this.podName(ordinal), namespace: this.namespace, labels: { ...selectorLabels(this.name), ...(role ? { [ROLE_LABEL]: role } : {}) } },
      spec: { nodeName: `node-${ordinal}` },
      status: {
        phase: 'Running',
        podIP: this.address(ordinal),
        conditions: [{ type: 'Ready', status: 'True' }],
        containerStatuses: [{ name: 'redis', ready: true, restartCount: 0, state: {} }],
      },
    });
  }
}
