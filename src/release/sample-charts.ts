import { App, Chart } from 'cdk8s';
import { RedisCluster, RedisClusterSpecPersistence } from '../../imports/redis.redkite.io';
import { SKIP_DRY_RUN_ON_MISSING_RESOURCE, SyncWave, syncWave } from './argocd';

export const SAMPLES_CHART_ID = 'redkite-samples';

/**
 * Adds a sample RedisCluster: three pods (a primary and two replicas) with AOF persistence. It names no namespace:
 * it lands where it is applied (`kubectl apply -n <namespace> -f dist/samples/`), and it lives apart from the
 * release so that pointing Argo CD at dist/ deploys no sample.
 */
export function addSampleCharts(app: App): void {
  const chart = new Chart(app, SAMPLES_CHART_ID);
  new RedisCluster(chart, 'cache', {
    metadata: {
      name: 'cache',
      annotations: { ...syncWave(SyncWave.CLUSTERS), ...SKIP_DRY_RUN_ON_MISSING_RESOURCE },
    },
    spec: {
      replicas: 3,
      version: '7.2',
      persistence: RedisClusterSpecPersistence.AOF,
      minReplicasToWrite: 1,
      storage: { size: '1Gi' },
      config: { 'maxmemory-policy': 'allkeys-lru' },
    },
  });
}
