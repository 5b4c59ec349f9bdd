import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { App, Chart, JsonPatch, Testing } from 'cdk8s';
import { RedisCluster as GeneratedRedisCluster } from '../../imports/redis.redkite.io';
import { RedisCluster, RedisClusterProps, RedkiteApp } from '../../src';
import { synthesizeRedisClusterWorkload } from '../../src/workload/synthesize-workload';

const root = path.join(__dirname, '..', '..');
const MIN_REPLICAS_MESSAGE =
  'RedisCluster payments/sessions is invalid: spec: Invalid value: "object": minReplicasToWrite must be less than replicas: the primary would refuse every write whenever one replica is down';

function paymentsChart(spec: RedisClusterProps['spec'], namespace?: string) {
  const chart = Testing.chart();
  const cluster = new RedisCluster(chart, 'sessions', { metadata: { name: 'sessions', namespace }, spec });
  return { chart, cluster };
}

describe('RedisCluster (the construct users place in their charts)', () => {
  it('synthesizes a valid spec exactly as the generated class does', () => {
    const spec = { replicas: 3, minReplicasToWrite: 1, storage: { size: '5Gi' }, config: { 'maxmemory-policy': 'volatile-lru' } };
    const generated = Testing.chart();
    new GeneratedRedisCluster(generated, 'sessions', { metadata: { name: 'sessions', namespace: 'payments' }, spec });
    expect(Testing.synth(paymentsChart(spec, 'payments').chart)).toEqual(Testing.synth(generated));
  });

  it('fails synth for minReplicasToWrite 5 with 3 replicas, with the apiserver message naming the object', () => {
    expect(() => Testing.synth(paymentsChart({ replicas: 3, minReplicasToWrite: 5 }, 'payments').chart)).toThrow(MIN_REPLICAS_MESSAGE);
  });

  it('fails synth for an operator-owned config key (port)', () => {
    expect(() => Testing.synth(paymentsChart({ config: { port: '6380' } }, 'payments').chart)).toThrow(
      /RedisCluster payments\/sessions is invalid: spec\.config: Invalid value: "object": config must not set parameters redkite manages/,
    );
  });

  it("names the object with the chart's namespace when the metadata has none", () => {
    const app = Testing.app();
    const chart = new Chart(app, 'payments', { namespace: 'payments' });
    new RedisCluster(chart, 'sessions', { metadata: { name: 'sessions' }, spec: { replicas: 3, minReplicasToWrite: 5 } });
    expect(() => app.synthYaml()).toThrow(MIN_REPLICAS_MESSAGE);
  });

  it('validates the object as rendered, after JSON patches', () => {
    const { chart, cluster } = paymentsChart({ replicas: 3 }, 'payments');
    cluster.addJsonPatch(JsonPatch.add('/spec/minReplicasToWrite', 5));
    expect(() => Testing.synth(chart)).toThrow(MIN_REPLICAS_MESSAGE);
  });

  it('fails RedkiteApp.synth() (the linear synth) as well as cdk8s App.synth()', () => {
    for (const app of [new RedkiteApp({ outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'redkite-synth-')) }), new App({ outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'redkite-synth-')) })]) {
      const chart = new Chart(app, 'payments');
      new RedisCluster(chart, 'sessions', { metadata: { name: 'sessions', namespace: 'payments' }, spec: { replicas: 3, minReplicasToWrite: 5 } });
      expect(() => app.synth()).toThrow(MIN_REPLICAS_MESSAGE);
      expect(fs.readdirSync(app.outdir)).toEqual([]);
    }
  });

  it("checks each object once per synth, though cdk8s's App validates the whole App once per chart", () => {
    const app = new App({ outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'redkite-synth-')) });
    for (const team of ['a', 'b', 'c', 'd']) {
      new RedisCluster(new Chart(app, team), 'redis', { metadata: { name: `cache-${team}` }, spec: { replicas: 3 } });
    }
    const render = jest.spyOn(GeneratedRedisCluster.prototype, 'toJson');
    try {
      app.synth();
      // Once to validate and once to write, for each of the four objects (without the memo: 4 + 1 validations each).
      expect(render).toHaveBeenCalledTimes(8);
    } finally {
      render.mockRestore();
    }
  });

  it('checks again in a later synth, after the construct changed', async () => {
    const { chart, cluster } = paymentsChart({ replicas: 3 }, 'payments');
    expect(() => Testing.synth(chart)).not.toThrow();
    await Promise.resolve();
    cluster.addJsonPatch(JsonPatch.add('/spec/minReplicasToWrite', 5));
    expect(() => Testing.synth(chart)).toThrow(MIN_REPLICAS_MESSAGE);
  });

  it('makes `cdk8s synth` exit non-zero and print the message', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'redkite-cdk8s-synth-'));
    try {
      fs.writeFileSync(
        path.join(dir, 'main.ts'),
        [
          "import { Chart } from 'cdk8s';",
          `import { RedisCluster, RedkiteApp } from ${JSON.stringify(path.join(root, 'src'))};`,
          'const app = new RedkiteApp();',
          "const payments = new Chart(app, 'payments');",
          "new RedisCluster(payments, 'sessions', { metadata: { name: 'sessions', namespace: 'payments' }, spec: { replicas: 3, minReplicasToWrite: 5 } });",
          'app.synth();',
        ].join('\n'),
      );
      fs.writeFileSync(path.join(dir, 'cdk8s.yaml'), `language: typescript\napp: ${process.execPath} ${require.resolve('tsx/cli')} main.ts\noutput: dist\n`);
      const cli = path.join(root, 'node_modules', 'cdk8s-cli', 'bin', 'cdk8s');
      // NODE_PATH: the app resolves cdk8s from this repository, the same copy src/ uses.
      const run = promisify(execFile)(process.execPath, [cli, 'synth', '--check-upgrade=false'], { cwd: dir, env: { ...process.env, NODE_PATH: path.join(root, 'node_modules') } });
      const failure = await run.then(() => undefined, (error: { code: number; stderr: string }) => error);
      expect(failure?.code).toBe(1);
      expect(failure?.stderr).toContain(`[payments/sessions] ${MIN_REPLICAS_MESSAGE}`);
      expect(fs.existsSync(path.join(dir, 'dist', 'payments.k8s.yaml'))).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('RedisClusterWorkload (the construct the controller and GitOps charts use)', () => {
  it('fails synth for a spec the apiserver would reject, naming the cluster', () => {
    expect(() => synthesizeRedisClusterWorkload({ name: 'sessions', namespace: 'payments', spec: { replicas: 3, minReplicasToWrite: 5 } })).toThrow(MIN_REPLICAS_MESSAGE);
    expect(() => synthesizeRedisClusterWorkload({ name: 'sessions', namespace: 'payments', spec: { config: { port: '6380' } } })).toThrow(
      /RedisCluster payments\/sessions is invalid: spec\.config: /,
    );
  });

  it('synthesizes a valid spec', () => {
    expect(synthesizeRedisClusterWorkload({ name: 'sessions', namespace: 'payments', spec: { replicas: 3, minReplicasToWrite: 2 } }).manifests.length).toBeGreaterThan(0);
  });
});
