import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ApiObject, App, Chart } from 'cdk8s';
import { RedkiteApp } from '../../src/app/redkite-app';
import { RedisClusterWorkload } from '../../src/workload/redis-cluster-workload';

function populate(app: App, clusters: number, withDependency = false): void {
  const charts: Chart[] = [];
  for (let index = 0; index < clusters; index++) {
    const chart = new Chart(app, `team-${index}`, { namespace: `team-${index}` });
    new RedisClusterWorkload(chart, 'redis', { name: `cache-${index}`, namespace: `team-${index}`, spec: { replicas: 1 + (index % 3) } });
    charts.push(chart);
  }
  if (withDependency) {
    // An object-level dependency across charts, which cdk8s turns into chart ordering and indexed file names.
    const first = charts[0].node.findAll().find(ApiObject.isApiObject)!;
    const last = charts[charts.length - 1].node.findAll().find(ApiObject.isApiObject)!;
    first.addDependency(last);
  }
}

function synthFiles(app: App): Record<string, string> {
  app.synth();
  return Object.fromEntries(fs.readdirSync(app.outdir).sort().map((file) => [file, fs.readFileSync(path.join(app.outdir, file), 'utf8')]));
}

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'redkite-app-'));
}

describe('RedkiteApp', () => {
  it('writes the same files as cdk8s App for independent charts', () => {
    const plain = new App({ outdir: tempDir() });
    const linear = new RedkiteApp({ outdir: tempDir() });
    populate(plain, 12);
    populate(linear, 12);
    expect(synthFiles(linear)).toEqual(synthFiles(plain));
  });

  it('writes the same files as cdk8s App when charts depend on each other', () => {
    const plain = new App({ outdir: tempDir() });
    const linear = new RedkiteApp({ outdir: tempDir() });
    populate(plain, 5, true);
    populate(linear, 5, true);
    const files = synthFiles(linear);
    expect(Object.keys(files)[0]).toMatch(/^0000-/);
    expect(files).toEqual(synthFiles(plain));
  });

  it('produces the same YAML stream as cdk8s App', () => {
    const plain = new App({ outdir: tempDir() });
    const linear = new RedkiteApp({ outdir: tempDir() });
    populate(plain, 4);
    populate(linear, 4);
    expect(linear.synthYaml()).toBe(plain.synthYaml());
  });

  it('reports construct validation errors like cdk8s does', () => {
    const app = new RedkiteApp({ outdir: tempDir() });
    const chart = new Chart(app, 'broken');
    chart.node.addValidation({ validate: () => ['always wrong'] });
    expect(() => app.synth()).toThrow(/\[broken\] always wrong/);
  });
});
