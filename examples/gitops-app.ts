import { Chart } from 'cdk8s';
import { RedisCluster, RedkiteApp, addReleaseCharts } from 'redkite';

// One chart per team; RedkiteApp synthesizes hundreds of charts in linear time.
export function buildApp(outdir: string): RedkiteApp {
  const app = new RedkiteApp({ outdir });
  addReleaseCharts(app, { watchNamespace: 'payments' });

  const payments = new Chart(app, 'payments');
  new RedisCluster(payments, 'sessions', {
    metadata: { name: 'sessions', namespace: 'payments' },
    spec: {
      replicas: 3,
      version: '7.2',
      minReplicasToWrite: 1,
      storage: { size: '5Gi' },
      config: { 'maxmemory-policy': 'volatile-lru' },
    },
  });
  return app;
}

if (require.main === module) buildApp('dist').synth();
