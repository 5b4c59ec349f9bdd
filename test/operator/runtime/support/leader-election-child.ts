/**
 * A controller process for the leader-election e2e test: leader election on a Lease with the default timings, a
 * controller over labelled ConfigMaps whose reconcile appends `start`/`end` records (with wall-clock times) to a file
 * and requeues itself, so there is always work that would overlap if two replicas ever led at once.
 *
 * Run: node --import tsx leader-election-child.ts <kubeconfig> <namespace> <records file> <identity>
 */
import { appendFileSync } from 'node:fs';
import { Manager, createLogger, loadKubeConfig } from '../../../../operator/runtime';

const [kubeconfigPath, namespace, recordsFile, identity] = process.argv.slice(2);

function record(event: string, extra: Record<string, unknown> = {}): void {
  appendFileSync(recordsFile, `${JSON.stringify({ identity, event, atMs: Date.now(), ...extra })}\n`);
}

async function main(): Promise<void> {
  const manager = new Manager({
    kubeConfig: loadKubeConfig(kubeconfigPath),
    namespace,
    leaderElection: { leaseName: 'runtime-e2e', leaseNamespace: namespace, identity },
    metricsBindAddress: '0',
    healthProbeBindAddress: '0',
    logger: createLogger({ level: 'warn' }),
  });
  manager
    .controller('leader-election-e2e')
    .for({ apiVersion: 'v1', kind: 'ConfigMap', labelSelector: 'redkite.io/e2e=leader-election' })
    .complete(async (key) => {
      record('start', { key: key.name });
      await new Promise((resolve) => setTimeout(resolve, 100));
      record('end', { key: key.name });
      return { requeueAfterMs: 50 };
    });
  record('ready');
  await manager.start();
  record('exited');
}

main().catch((error: unknown) => {
  record('failed', { error: String(error) });
  process.exit(1);
});
