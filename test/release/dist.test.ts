import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';

const root = path.join(__dirname, '..', '..');
const distDir = path.join(root, 'dist');

function filesIn(dir: string): Record<string, string> {
  const files = fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) => fs.statSync(path.join(dir, file)).isFile());
  return Object.fromEntries(files.sort().map((file) => [file, fs.readFileSync(path.join(dir, file), 'utf8')]));
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function manifests(file: string): any[] {
  return parseAllDocuments(fs.readFileSync(path.join(distDir, file), 'utf8')).map((document) => document.toJSON());
}

describe('dist/', () => {
  it('is reproduced byte for byte by synthesizing main.ts', () => {
    const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'redkite-dist-'));
    execFileSync(process.execPath, [require.resolve('tsx/cli'), 'main.ts'], { cwd: root, env: { ...process.env, CDK8S_OUTDIR: outdir }, stdio: 'pipe' });
    expect(filesIn(outdir)).toEqual(filesIn(distDir));
  }, 60_000);

  it('orders the release for Argo CD: CRD -2, namespace and RBAC -1, operator 0, samples 1', () => {
    const wave = (object: { metadata: { annotations?: Record<string, string> } }) => object.metadata.annotations?.['argocd.argoproj.io/sync-wave'];
    const [crd] = manifests('redkite-crd.k8s.yaml');
    expect(wave(crd)).toBe('-2');
    expect(crd.metadata.annotations['argocd.argoproj.io/sync-options']).toBe('ServerSideApply=true');
    for (const object of manifests('redkite-operator.k8s.yaml')) {
      const expected = ['Deployment', 'Service', 'PodDisruptionBudget'].includes(object.kind) ? '0' : '-1';
      expect([object.kind, wave(object)]).toEqual([object.kind, expected]);
    }
    for (const object of manifests('samples/redkite-samples.k8s.yaml')) expect(wave(object)).toBe('1');
  });

  it('holds the CRD, the RBAC, the operator and a sample RedisCluster', () => {
    const kinds = ['redkite-crd.k8s.yaml', 'redkite-operator.k8s.yaml', 'samples/redkite-samples.k8s.yaml'].flatMap((file) =>
      manifests(file).map((object) => object.kind),
    );
    expect(kinds.sort()).toEqual([
      'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition', 'Deployment', 'Namespace',
      'PodDisruptionBudget', 'RedisCluster', 'Role', 'RoleBinding', 'Service', 'ServiceAccount',
    ]);
  });

  it('keeps the samples out of the release: Argo CD pointed at dist/ deploys none, and they name no namespace', () => {
    const topLevelManifests = fs.readdirSync(distDir).filter((file) => file.endsWith('.k8s.yaml'));
    expect(topLevelManifests.sort()).toEqual(['redkite-crd.k8s.yaml', 'redkite-operator.k8s.yaml']);
    expect(manifests('kustomization.yaml')[0].resources).toEqual(['redkite-crd.k8s.yaml', 'redkite-operator.k8s.yaml']);
    for (const sample of manifests('samples/redkite-samples.k8s.yaml')) expect(sample.metadata.namespace).toBeUndefined();
  });

  it('takes the operator image from REDKITE_OPERATOR_IMAGE at synth time, everywhere the image appears', () => {
    const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'redkite-dist-image-'));
    const env = { ...process.env, CDK8S_OUTDIR: outdir, REDKITE_OPERATOR_IMAGE: 'registry.example:5000/team/redkite:1.2.3' };
    execFileSync(process.execPath, [require.resolve('tsx/cli'), 'main.ts'], { cwd: root, env, stdio: 'pipe' });
    const deployment = parseAllDocuments(fs.readFileSync(path.join(outdir, 'redkite-operator.k8s.yaml'), 'utf8'))
      .map((document) => document.toJSON())
      .find((object) => object.kind === 'Deployment');
    expect(deployment.spec.template.spec.containers[0].image).toBe('registry.example:5000/team/redkite:1.2.3');
    expect(fs.readFileSync(path.join(outdir, 'helm', 'redkite', 'values.yaml'), 'utf8')).toContain('repository: registry.example:5000/team/redkite\n  tag: 1.2.3\n');
  }, 60_000);

  it('refuses an operator image override that is not an image reference, naming the variable', () => {
    const env = { ...process.env, CDK8S_OUTDIR: fs.mkdtempSync(path.join(os.tmpdir(), 'redkite-dist-bad-')), REDKITE_OPERATOR_IMAGE: 'not an image' };
    expect(() => execFileSync(process.execPath, [require.resolve('tsx/cli'), 'main.ts'], { cwd: root, env, stdio: 'pipe' })).toThrow(
      /REDKITE_OPERATOR_IMAGE: "not an image" is not a container image reference/,
    );
  }, 60_000);
});
