import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { synthesizeExample } from './synthesize-example';

const root = path.join(__dirname, '..', '..');

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Manifest = any;

const manifestsOf = (files: Record<string, string>): Manifest[] =>
  Object.values(files).flatMap((text) => parseAllDocuments(text).map((document) => document.toJSON()));
const wave = (object: Manifest) => Number(object.metadata.annotations?.['argocd.argoproj.io/sync-wave']);

describe('the README example', () => {
  let files: Record<string, string>;
  let objects: Manifest[];
  beforeAll(() => {
    files = synthesizeExample();
    objects = manifestsOf(files);
  });

  it('is the code of examples/gitops-app.ts, verbatim', () => {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const example = fs.readFileSync(path.join(root, 'examples', 'gitops-app.ts'), 'utf8');
    expect(readme).toContain('```ts\n' + example + '```');
  });

  it('writes one file for the whole app into the folder cdk8s synth names', () => {
    expect(Object.keys(files)).toEqual(['app.k8s.yaml']);
  });

  it('synthesizes the release of dist/, then the team\'s chart', () => {
    const release = ['redkite-crd.k8s.yaml', 'redkite-operator.k8s.yaml'].flatMap((file) =>
      parseAllDocuments(fs.readFileSync(path.join(root, 'dist', file), 'utf8')).map((document) => document.toJSON()),
    );
    expect(objects.slice(0, release.length)).toEqual(release);
    expect(objects.slice(release.length).map((object) => `${object.kind}/${object.metadata.name}`)).toEqual(['Namespace/payments', 'RedisCluster/sessions']);
  });

  it('creates every namespace it deploys into, in a sync wave before the objects in it', () => {
    const namespaces = new Map(objects.filter((object) => object.kind === 'Namespace').map((object) => [object.metadata.name, object]));
    for (const object of objects.filter((candidate) => candidate.metadata.namespace !== undefined)) {
      const namespace = namespaces.get(object.metadata.namespace);
      expect([object.kind, object.metadata.namespace, namespace !== undefined]).toEqual([object.kind, object.metadata.namespace, true]);
      expect(wave(namespace)).toBeLessThanOrEqual(wave(object));
    }
  });

  it('gives the RedisCluster a sync wave after the CRD and the controller, and lets Argo CD skip its dry run until the CRD exists', () => {
    const crd = objects.find((object) => object.kind === 'CustomResourceDefinition');
    const deployment = objects.find((object) => object.kind === 'Deployment');
    const cluster = objects.find((object) => object.kind === 'RedisCluster');
    expect(cluster).toMatchObject({ metadata: { name: 'sessions', namespace: 'payments' }, spec: { replicas: 3, minReplicasToWrite: 1 } });
    expect(wave(cluster)).toBeGreaterThan(wave(crd));
    expect(wave(cluster)).toBeGreaterThan(wave(deployment));
    expect(cluster.metadata.annotations['argocd.argoproj.io/sync-options']).toBe('SkipDryRunOnMissingResource=true');
  });
});
