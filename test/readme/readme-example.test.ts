import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { buildApp } from '../../examples/gitops-app';

const root = path.join(__dirname, '..', '..');

describe('the README example', () => {
  it('is the code of examples/gitops-app.ts, verbatim', () => {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const example = fs.readFileSync(path.join(root, 'examples', 'gitops-app.ts'), 'utf8');
    expect(readme).toContain('```ts\n' + example + '```');
  });

  it('synthesizes the release scoped to one namespace and a RedisCluster', () => {
    const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'redkite-readme-'));
    buildApp(outdir).synth();
    const objects = fs
      .readdirSync(outdir)
      .flatMap((file) => parseAllDocuments(fs.readFileSync(path.join(outdir, file), 'utf8')).map((document) => document.toJSON()));
    const cluster = objects.find((object) => object.kind === 'RedisCluster');
    expect(cluster).toMatchObject({ metadata: { name: 'sessions', namespace: 'payments' }, spec: { replicas: 3, minReplicasToWrite: 1 } });
    expect(objects.filter((object) => object.kind === 'Role').map((role) => role.metadata.namespace).sort()).toEqual(['payments', 'redkite-system']);
  });
});
