import * as path from 'node:path';
import { DIST_DIR, byIdentity, distManifests, parseManifests, releaseOperatorManifests } from './support/manifests';
import { INSTALL_TOOLS_TIMEOUT_MILLISECONDS, installTools, runTool } from './support/install-tools';

jest.setTimeout(INSTALL_TOOLS_TIMEOUT_MILLISECONDS);

const CHART_DIR = path.join(DIST_DIR, 'helm', 'redkite');

async function helmTemplate(args: readonly string[]) {
  const { helm } = await installTools();
  return parseManifests(await runTool(helm, ['template', 'redkite', CHART_DIR, '--namespace', 'redkite-system', ...args]));
}

describe('the Helm chart in dist/helm/redkite, checked with a real helm', () => {
  it('passes helm lint --strict', async () => {
    const { helm } = await installTools();
    const output = await runTool(helm, ['lint', '--strict', CHART_DIR]);
    expect(output).toContain('1 chart(s) linted, 0 chart(s) failed');
  });

  it('renders what dist/ holds for default values (the namespace comes from helm install --create-namespace)', async () => {
    const rendered = await helmTemplate(['--include-crds']);
    const dist = [...distManifests('redkite-crd.k8s.yaml'), ...distManifests('redkite-operator.k8s.yaml')].filter((object) => object.kind !== 'Namespace');
    expect(byIdentity(rendered)).toEqual(byIdentity(dist));
  });

  it('renders what the constructs synthesize for a namespace-scoped operator', async () => {
    const rendered = await helmTemplate(['--set', 'rbac.scope=namespace', '--set', 'watchNamespace=apps']);
    expect(byIdentity(rendered)).toEqual(byIdentity(releaseOperatorManifests({ watchNamespace: 'apps' })));
    expect(rendered.map((object) => object.kind)).not.toContain('ClusterRole');
  });

  it('watches the release namespace when namespace-scoped without a watchNamespace', async () => {
    const { helm } = await installTools();
    const rendered = parseManifests(await runTool(helm, ['template', 'redkite', CHART_DIR, '--namespace', 'team-a', '--set', 'rbac.scope=namespace']));
    expect(byIdentity(rendered)).toEqual(byIdentity(releaseOperatorManifests({ namespace: 'team-a', watchNamespace: 'team-a' })));
  });

  it('renders what the constructs synthesize for one replica without leader election', async () => {
    const rendered = await helmTemplate(['--set', 'leaderElection.enabled=false', '--set', 'replicas=1']);
    expect(byIdentity(rendered)).toEqual(byIdentity(releaseOperatorManifests({ leaderElection: false, replicas: 1 })));
  });

  it('takes the image, the replica count and the resources from values', async () => {
    const resources = { requests: { cpu: '250m', memory: '256Mi' }, limits: { cpu: '1', memory: '1Gi' } };
    const rendered = await helmTemplate([
      '--set', 'image.repository=registry.example:5000/team/redkite', '--set', 'image.tag=1.2.3',
      '--set', 'replicas=3', '--set-json', `resources=${JSON.stringify(resources)}`,
    ]);
    const expected = releaseOperatorManifests({ image: 'registry.example:5000/team/redkite:1.2.3', replicas: 3, resources });
    expect(byIdentity(rendered)).toEqual(byIdentity(expected));
  });

  it('refuses more than one replica without leader election, as the construct does', async () => {
    await expect(helmTemplate(['--set', 'leaderElection.enabled=false'])).rejects.toThrow('replicas: 2 needs leaderElection.enabled: true');
  });

  it('refuses a watchNamespace with a cluster-wide RBAC scope', async () => {
    await expect(helmTemplate(['--set', 'watchNamespace=apps'])).rejects.toThrow('watchNamespace needs rbac.scope: namespace');
  });

  it('refuses values its schema does not allow', async () => {
    await expect(helmTemplate(['--set', 'rbac.scope=everywhere'])).rejects.toThrow(/rbac\.scope|scope/);
    await expect(helmTemplate(['--set', 'replicaCount=3'])).rejects.toThrow(/replicaCount/);
  });
});
