import * as fs from 'node:fs';
import * as path from 'node:path';

/** Bytes of the files under `folder`, not counting its own node_modules (those are packages of their own). */
export function packageBytes(folder: string): number {
  let bytes = 0;
  for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
    const entryPath = path.join(folder, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') bytes += packageBytes(entryPath);
    } else if (entry.isFile()) {
      bytes += fs.statSync(entryPath).size;
    }
  }
  return bytes;
}

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
}

function readManifest(folder: string): Manifest {
  return JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8'));
}

/** Where Node finds package `name` from `folder`: the nearest node_modules/<name> above it. */
function resolvePackageFolder(name: string, folder: string): string {
  for (let current = folder; ; current = path.dirname(current)) {
    const candidate = path.join(current, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (path.dirname(current) === current) throw new Error(`package ${name} is not installed above ${folder}`);
  }
}

/**
 * The installed folders of a package and of everything its `dependencies` pull in, transitively (peer dependencies
 * are the app's own and are not followed).
 */
export function dependencyClosure(packageFolder: string): string[] {
  const seen = new Set<string>();
  const pending = [packageFolder];
  while (pending.length > 0) {
    const folder = pending.pop() as string;
    if (seen.has(folder)) continue;
    seen.add(folder);
    for (const name of Object.keys(readManifest(folder).dependencies ?? {})) pending.push(resolvePackageFolder(name, folder));
  }
  return [...seen];
}

/** Every installed copy of package `name` under an app's node_modules, at any depth, as `version at folder`. */
export function installedCopies(appFolder: string, name: string): string[] {
  const copies: string[] = [];
  const visit = (nodeModules: string): void => {
    if (!fs.existsSync(nodeModules)) return;
    for (const entry of fs.readdirSync(nodeModules, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const folders = entry.name.startsWith('@')
        ? fs.readdirSync(path.join(nodeModules, entry.name)).map((scoped) => path.join(nodeModules, entry.name, scoped))
        : [path.join(nodeModules, entry.name)];
      for (const folder of folders) {
        if (!fs.existsSync(path.join(folder, 'package.json'))) continue;
        const manifest = readManifest(folder);
        if (manifest.name === name) copies.push(`${manifest.version} at ${path.relative(appFolder, folder)}`);
        visit(path.join(folder, 'node_modules'));
      }
    }
  };
  visit(path.join(appFolder, 'node_modules'));
  return copies;
}
