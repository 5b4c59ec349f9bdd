import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DIST_DIR, byIdentity, distManifests, parseManifests } from './support/manifests';
import { INSTALL_TOOLS_TIMEOUT_MILLISECONDS, installTools, runTool } from './support/install-tools';

jest.setTimeout(INSTALL_TOOLS_TIMEOUT_MILLISECONDS);

const release = () => [...distManifests('redkite-crd.k8s.yaml'), ...distManifests('redkite-operator.k8s.yaml')];

describe('dist/kustomization.yaml, built with a real kustomize', () => {
  it('builds the release: the CRD and the operator, no sample', async () => {
    const { kustomize } = await installTools();
    const built = parseManifests(await runTool(kustomize, ['build', DIST_DIR]));
    expect(byIdentity(built)).toEqual(byIdentity(release()));
  });

  it('swaps the operator image through an overlay and changes nothing else', async () => {
    const { kustomize } = await installTools();
    const overlay = fs.mkdtempSync(path.join(os.tmpdir(), 'redkite-overlay-'));
    fs.writeFileSync(
      path.join(overlay, 'kustomization.yaml'),
      [
        'apiVersion: kustomize.config.k8s.io/v1beta1',
        'kind: Kustomization',
        'resources:',
        `  - ${path.relative(overlay, DIST_DIR)}`,
        'images:',
        '  - name: ghcr.io/redkite/redkite',
        '    newName: registry.example:5000/team/redkite',
        '    newTag: 1.2.3',
        '',
      ].join('\n'),
    );
    try {
      const built = byIdentity(parseManifests(await runTool(kustomize, ['build', overlay])));
      const expected = byIdentity(release());
      const deployment = 'Deployment redkite-system/redkite-operator';
      expect(built[deployment].spec.template.spec.containers[0].image).toBe('registry.example:5000/team/redkite:1.2.3');
      expected[deployment].spec.template.spec.containers[0].image = 'registry.example:5000/team/redkite:1.2.3';
      expect(built).toEqual(expected);
    } finally {
      fs.rmSync(overlay, { recursive: true, force: true });
    }
  });
});
