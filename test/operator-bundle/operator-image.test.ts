import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_OPERATOR_IMAGE, validateImageReference } from '../../src/operator-bundle/operator-image';
import { PACKAGE_VERSION } from '../../src/operator-bundle/package-version';

const packageJson = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };

describe('the operator image reference', () => {
  it('is tagged with the package version (npm version runs image/sync-package-version.ts to keep them equal)', () => {
    expect(PACKAGE_VERSION).toBe(packageJson.version);
    expect(DEFAULT_OPERATOR_IMAGE).toBe(`ghcr.io/redkite/redkite:${packageJson.version}`);
  });

  it.each(['ghcr.io/redkite/redkite:0.1.0', 'localhost:5000/redkite', 'redkite@sha256:' + 'a'.repeat(64), 'registry.example/team/redkite:1.2.3-rc.1'])(
    'accepts %s',
    (image) => {
      expect(validateImageReference(image, 'test')).toBe(image);
    },
  );

  it.each(['', 'Redkite:1', 'ghcr.io/redkite/redkite:', 'redkite:tag with space', 'https://ghcr.io/redkite'])('refuses "%s"', (image) => {
    expect(() => validateImageReference(image, 'test')).toThrow(`test: "${image}" is not a container image reference`);
  });
});
