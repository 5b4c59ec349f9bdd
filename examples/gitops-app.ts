import { Chart, YamlOutputType } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { RedisCluster, RedkiteApp, SKIP_DRY_RUN_ON_MISSING_RESOURCE, SyncWave, addReleaseCharts, syncWave } from 'redkite';

// The release (CRD, RBAC, controller), then one chart per team: RedkiteApp synthesizes hundreds of charts in
// linear time. With no outdir it writes where `cdk8s synth` says: cdk8s.yaml's `output`, or stdout with --stdout.
// One file for the whole app, because `cdk8s synth --stdout` joins per-chart files with no `---` between them.
export function buildApp(): RedkiteApp {
  const app = new RedkiteApp({ yamlOutputType: YamlOutputType.FILE_PER_APP });
  addReleaseCharts(app);

  const payments = new Chart(app, 'payments');
  new k8s.KubeNamespace(payments, 'namespace', {
    metadata: { name: 'payments', annotations: syncWave(SyncWave.RBAC) },
  });
  new RedisCluster(payments, 'sessions', {
    metadata: {
      name: 'sessions',
      namespace: 'payments',
      // Argo CD applies it after the CRD and the controller, and skips its dry run while the CRD is not there yet.
      annotations: { ...syncWave(SyncWave.CLUSTERS), ...SKIP_DRY_RUN_ON_MISSING_RESOURCE },
    },
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

if (require.main === module) buildApp().synth();
