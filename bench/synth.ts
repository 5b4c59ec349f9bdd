/**
 * Synth at scale: a GitOps repository declaring N RedisClusters, one chart each (the usual layout: a chart per
 * team or service). Compares redkite's RedkiteApp (linear) with cdk8s's own App (quadratic: it re-resolves and
 * re-validates the whole App for every chart), both writing files exactly as `cdk8s synth` does.
 *
 *   npm run bench:synth            # 100 / 1000 / 5000 clusters
 *   BENCH_SYNTH_SIZES=100,1000 npm run bench:synth
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, Chart } from 'cdk8s';
import { RedisCluster } from '../imports/redis.redkite.io';
import { RedkiteApp } from '../src/app/redkite-app';
import { synthesizeRedisClusterWorkload } from '../src/workload/synthesize-workload';

function declareClusters(app: App, count: number): void {
  for (let index = 0; index < count; index++) {
    const chart = new Chart(app, `team-${index}`);
    new RedisCluster(chart, 'redis', {
      metadata: { name: `cache-${index}`, namespace: `team-${index % 50}` },
      spec: { replicas: 3, version: '7.2', minReplicasToWrite: 1, storage: { size: '1Gi' }, config: { 'maxmemory-policy': 'allkeys-lru' } },
    });
  }
}

function timeSynth(makeApp: (outdir: string) => App, count: number): number {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'redkite-bench-'));
  try {
    const started = process.hrtime.bigint();
    const app = makeApp(outdir);
    declareClusters(app, count);
    app.synth();
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const files = fs.readdirSync(outdir).length;
    if (files !== count) throw new Error(`expected ${count} files, found ${files}`);
    return seconds;
  } finally {
    fs.rmSync(outdir, { recursive: true, force: true });
  }
}

function timeWorkloads(count: number): number {
  const started = process.hrtime.bigint();
  for (let index = 0; index < count; index++) {
    synthesizeRedisClusterWorkload({ name: `cache-${index}`, namespace: 'bench', spec: { replicas: 3 } });
  }
  return Number(process.hrtime.bigint() - started) / 1e9;
}

function main(): void {
  const sizes = (process.env.BENCH_SYNTH_SIZES ?? '100,1000,5000').split(',').map(Number);
  // Warm up module loading and JIT so the first size is not penalized.
  timeSynth((outdir) => new RedkiteApp({ outdir }), 50);
  timeSynth((outdir) => new App({ outdir }), 50);
  console.log(`node ${process.version}, ${os.cpus().length} CPUs; each cluster is one chart holding one RedisCluster`);
  console.log('clusters | redkite (RedkiteApp) | naive (cdk8s App) | ratio naive/redkite | controller workload synth');
  for (const size of sizes) {
    const redkite = timeSynth((outdir) => new RedkiteApp({ outdir }), size);
    const naive = timeSynth((outdir) => new App({ outdir }), size);
    const workloads = timeWorkloads(size);
    console.log(
      `${String(size).padStart(8)} | ${redkite.toFixed(3).padStart(18)} s | ${naive.toFixed(3).padStart(15)} s | ${(naive / redkite).toFixed(1).padStart(19)}x | ${(
        (workloads / size) * 1000
      ).toFixed(3)} ms per cluster (${workloads.toFixed(2)} s total)`,
    );
  }
}

main();
