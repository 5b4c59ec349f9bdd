/**
 * The plain-client baseline as its own process, so its memory can be measured beside the controller's:
 * server-side applies each cluster's workload manifests plus a Secret, `concurrency` clusters at a time, then prints
 * one JSON line with its timings and its peak RSS (VmHWM).
 *
 *   node --import tsx bench/support/convergence-plain-client.ts <kubeconfig> <namespace> <size> <real|noProcess> <concurrency>
 */
import { readFileSync } from 'node:fs';
import { AdminClient, forEachConcurrently, type PlainObject } from './convergence-kube';
import { baselineObjects, clusterNames, type PodBacking } from './convergence-workloads';

/** What the child prints. */
export interface PlainClientReport {
  readonly objectCount: number;
  readonly synthesisSeconds: number;
  readonly applySeconds: number;
  readonly peakRssMebibytes: number;
}

function peakRssMebibytes(): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

async function main(): Promise<void> {
  const [kubeconfig, namespace, size, backing, concurrency] = process.argv.slice(2);
  if (!kubeconfig || !namespace || !size || !backing || !concurrency) {
    throw new Error('usage: convergence-plain-client.ts <kubeconfig> <namespace> <size> <real|noProcess> <concurrency>');
  }
  const admin = new AdminClient(kubeconfig);
  const synthesisStarted = performance.now();
  const perCluster: PlainObject[][] = clusterNames(Number(size)).map((name) => baselineObjects(name, namespace, backing as PodBacking));
  const synthesisSeconds = (performance.now() - synthesisStarted) / 1000;
  const started = performance.now();
  await forEachConcurrently(perCluster, Number(concurrency), async (objects) => {
    for (const object of objects) await admin.apply(object);
  });
  const report: PlainClientReport = {
    objectCount: perCluster.reduce((sum, objects) => sum + objects.length, 0),
    synthesisSeconds,
    applySeconds: (performance.now() - started) / 1000,
    peakRssMebibytes: peakRssMebibytes(),
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
