import pino from 'pino';
import type { GroupVersionKind, KubernetesObject, ReconcileResult } from '../../../../operator/runtime';
import { REDIS_CLUSTER_GVK, type PodObject, type RedisClusterObject } from '../../../../operator/rediscluster/cluster-object';
import { desiredState } from '../../../../operator/rediscluster/desired-state';
import { RedisClusterReconciler, type CacheReader, type ClusterCaches } from '../../../../operator/rediscluster/reconciler';
import { CallJournal, type JournalEntry } from './call-journal';
import { ClusterFixture, type ClusterFixtureOptions } from './cluster-fixture';
import { FakeClocks } from './fake-clocks';
import { FakeEventRecorder } from './fake-event-recorder';
import { FakeKubernetes } from './fake-kubernetes';
import { FakeRedis } from './fake-redis';
import { FakeWatchdog } from './fake-watchdog';

const silentLogger = pino({ level: 'silent' });

/** The kinds the reconciler applies, read from what the workload construct synthesizes. */
function ownedKinds(): GroupVersionKind[] {
  const sample = desiredState({ ...REDIS_CLUSTER_GVK, metadata: { name: 'sample', namespace: 'sample', uid: 'sample' }, spec: {} });
  const kinds = new Map(sample.manifests.map((manifest) => [`${manifest.apiVersion}/${manifest.kind}`, { apiVersion: manifest.apiVersion, kind: manifest.kind }]));
  return [...kinds.values()];
}

/**
 * A {@link RedisClusterReconciler} wired to fakes only: an in-memory apiserver and its caches, a fleet of fake Redis
 * servers, an Event recorder and a watchdog, all recording into one {@link CallJournal}, and clocks that move only
 * when the test moves them.
 */
export class ReconcilerHarness {
  readonly journal = new CallJournal();
  readonly clocks = new FakeClocks();
  readonly kube = new FakeKubernetes(this.journal, this.clocks.now);
  readonly redis = new FakeRedis(this.journal);
  readonly events = new FakeEventRecorder(this.journal);
  readonly watchdog = new FakeWatchdog();
  readonly reconciler: RedisClusterReconciler;
  /** What the manager's synchronous lease check answers; false: a paused leader resumed past its renew deadline. */
  leaseCurrent = true;

  constructor() {
    const caches: ClusterCaches = {
      clusters: this.kube.cache<RedisClusterObject>(REDIS_CLUSTER_GVK),
      pods: this.kube.cache<PodObject>({ apiVersion: 'v1', kind: 'Pod' }),
      owned: new Map<string, CacheReader<KubernetesObject>>(ownedKinds().map((kind) => [`${kind.apiVersion}/${kind.kind}`, this.kube.cache(kind)])),
    };
    this.reconciler = new RedisClusterReconciler({
      client: this.kube,
      admin: this.redis,
      recorder: this.events,
      caches,
      watchdog: this.watchdog,
      now: this.clocks.now,
      monotonicNow: this.clocks.monotonicNow,
      leaseCurrent: () => this.leaseCurrent,
    });
  }

  addCluster(options: ClusterFixtureOptions = {}): ClusterFixture {
    return new ClusterFixture(this.kube, this.redis, options);
  }

  /** One reconcile of the cluster, as the controller's worker would call it. */
  reconcile(cluster: ClusterFixture, options: { signal?: AbortSignal } = {}): Promise<ReconcileResult | void> {
    return this.reconciler.reconcile(cluster.key, {
      logger: silentLogger,
      signal: options.signal ?? new AbortController().signal,
      reconcileId: `test-${this.journal.entries.length}`,
      retries: 0,
    });
  }

  /** One reconcile, with what it asked of the fakes (and only that). */
  async reconcileRecorded(cluster: ClusterFixture, options: { signal?: AbortSignal } = {}): Promise<{ result: ReconcileResult | void; calls: JournalEntry[] }> {
    this.journal.markNow();
    const result = await this.reconcile(cluster, options);
    return { result, calls: this.journal.sinceMark() };
  }

  /** Reconciles, lets `stepMilliseconds` pass on both clocks, and repeats `passes` times. */
  async reconcileRepeatedly(cluster: ClusterFixture, passes: number, stepMilliseconds: number): Promise<Array<ReconcileResult | void>> {
    const results: Array<ReconcileResult | void> = [];
    for (let pass = 0; pass < passes; pass += 1) {
      results.push(await this.reconcile(cluster));
      this.clocks.advance(stepMilliseconds);
    }
    return results;
  }
}
