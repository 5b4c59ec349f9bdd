import * as fs from 'node:fs';
import * as path from 'node:path';
import { App, Chart } from 'cdk8s';
import { parseAllDocuments } from 'yaml';
import { addReleaseOperator, type ReleaseOperatorProps } from '../../../src/release/release-charts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Manifest = any;

export const DIST_DIR = path.join(__dirname, '..', '..', '..', 'dist');

/** Objects of a multi-document YAML stream (empty documents, as helm prints for skipped templates, dropped). */
export function parseManifests(text: string): Manifest[] {
  return parseAllDocuments(text)
    .map((document) => document.toJSON())
    .filter((object) => object !== null && typeof object === 'object');
}

export function distManifests(file: string): Manifest[] {
  return parseManifests(fs.readFileSync(path.join(DIST_DIR, file), 'utf8'));
}

/** Objects keyed by kind, namespace and name, so two renderings compare regardless of order. */
export function byIdentity(manifests: readonly Manifest[]): Record<string, Manifest> {
  return Object.fromEntries(manifests.map((manifest) => [`${manifest.kind} ${manifest.metadata.namespace ?? '-'}/${manifest.metadata.name}`, manifest]));
}

/** What the release's OperatorBundle synthesizes for the given props. */
export function releaseOperatorManifests(props: ReleaseOperatorProps): Manifest[] {
  const chart = new Chart(new App(), 'expected');
  addReleaseOperator(chart, props);
  return chart.toJson();
}
