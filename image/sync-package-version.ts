// `npm version` runs this (the `version` script) after it bumped package.json: it rewrites
// src/operator-bundle/package-version.ts, so the image tag in dist/ follows the package version.
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

const root = path.join(__dirname, '..');
const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
const file = path.join(root, 'src', 'operator-bundle', 'package-version.ts');
const source = readFileSync(file, 'utf8');
const updated = source.replace(/export const PACKAGE_VERSION = '[^']*';/, `export const PACKAGE_VERSION = '${version}';`);
if (!updated.includes(`'${version}'`)) throw new Error(`${file} holds no PACKAGE_VERSION constant to update`);
writeFileSync(file, updated);
process.stdout.write(`PACKAGE_VERSION = ${version}\n`);
