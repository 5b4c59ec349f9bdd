/**
 * The version in package.json, kept here because src/ is pure (no file reads) and a JSON import would copy
 * package.json into lib/. `npm version` rewrites it (the `version` script runs image/sync-package-version.ts), and
 * test/operator-bundle/operator-image.test.ts fails when it drifts from package.json.
 */
export const PACKAGE_VERSION = '0.1.0';
