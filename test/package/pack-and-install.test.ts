/**
 * The npm package as a user gets it: `npm pack` (prepack compiles lib/), then the tarball installed into a fresh cdk8s
 * TypeScript app (test/package/user-app, with cdk8s and constructs versions other than redkite's own), where
 * `cdk8s synth` runs the README example through ts-node, which type-checks it against the shipped declarations.
 * It needs the npm registry (or a warm npm cache) and nothing else.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { readFolder, synthesizeExample } from '../readme/synthesize-example';
import { dependencyClosure, installedCopies, packageBytes } from './installed-packages';

const root = path.join(__dirname, '..', '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
// The repository's cdk8s CLI: the one a user runs is installed globally or with npx, never by the app under test.
const cdk8sCli = path.join(root, 'node_modules', 'cdk8s-cli', 'bin', 'cdk8s');
const PEERS = ['cdk8s', 'constructs', 'cdk8s-plus-28'];

interface PackResult {
  filename: string;
  size: number;
  unpackedSize: number;
  files: { path: string }[];
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw new Error(`${command} ${args.join(' ')} could not start: ${result.error.message}`, { cause: result.error });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} (in ${cwd}) exited ${result.status}:\n${result.stdout.slice(-4000)}\n${result.stderr.slice(-4000)}`);
  }
  return result.stdout;
}

/** What the tarball must hold: the compiled JavaScript and declarations of src/, imports/ and operator/, and these. */
function expectedTarballFiles(): string[] {
  const sources = (folder: string): string[] =>
    fs
      .readdirSync(path.join(root, folder), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
      .map((file) => path.posix.join(folder, file.split(path.sep).join('/')));
  const compiled = ['src', 'imports', 'operator']
    .flatMap(sources)
    .flatMap((source) => [`lib/${source.replace(/\.ts$/, '.js')}`, `lib/${source.replace(/\.ts$/, '.d.ts')}`]);
  return [...compiled, 'bin/redkite.js', 'dist/redkite-crd.k8s.yaml', 'README.md', 'LICENSE', 'CHANGELOG.md', 'package.json'].sort();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const documentsOf = (yaml: string): any[] => parseAllDocuments(yaml).map((document) => document.toJSON());
const kibibytes = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;
const mebibytes = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

describe('the npm package', () => {
  const version: string = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version;
  let workspace: string;
  let app: string;
  let pack: PackResult;

  beforeAll(() => {
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'redkite-package-'));
    app = path.join(workspace, 'app');
    // Removing lib/ first proves prepack builds it rather than packing what an earlier build left.
    fs.rmSync(path.join(root, 'lib'), { recursive: true, force: true });
    [pack] = JSON.parse(run(npm, ['pack', '--json', '--pack-destination', workspace], root));

    fs.cpSync(path.join(__dirname, 'user-app'), app, { recursive: true });
    fs.copyFileSync(path.join(root, 'examples', 'gitops-app.ts'), path.join(app, 'main.ts'));
    // --prefer-offline: a warm npm cache makes this quick; a cold one fetches from the registry.
    run(npm, ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', path.join(workspace, pack.filename)], app);
  }, 600_000);

  afterAll(() => {
    if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
  });

  it('ships exactly lib/, the bin, the CRD, README, LICENSE and CHANGELOG', () => {
    const files = pack.files.map((file) => file.path).sort();
    expect(files.filter((file) => /^(test|bench|image|examples|imports|src|operator)\/|\.tgz$|(^|\/)go\.(mod|sum)$/.test(file))).toEqual([]);
    expect(files).toEqual(expectedTarballFiles());
    console.log(
      `redkite ${version} tarball: ${pack.filename} ${kibibytes(pack.size)} packed, ${kibibytes(pack.unpackedSize)} unpacked, ${files.length} files`,
    );
  });

  it('installs with the app\'s own cdk8s, constructs and cdk8s-plus-28: one copy of each, none nested under redkite', () => {
    const appManifest = JSON.parse(fs.readFileSync(path.join(app, 'package.json'), 'utf8'));
    for (const peer of PEERS) {
      expect([peer, installedCopies(app, peer)]).toEqual([peer, [`${appManifest.dependencies[peer]} at node_modules/${peer}`]]);
    }
    // The app's cdk8s differs from the one redkite is developed against, so this is not a coincidence of versions.
    const developedAgainst = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).devDependencies.cdk8s;
    expect(appManifest.dependencies.cdk8s).not.toBe(developedAgainst);

    const redkite = path.join(app, 'node_modules', 'redkite');
    const closure = dependencyClosure(redkite);
    const sizes = closure.map((folder) => ({ name: path.relative(path.join(app, 'node_modules'), folder), bytes: packageBytes(folder) }));
    const closureBytes = sizes.reduce((total, { bytes }) => total + bytes, 0);
    const largest = [...sizes].sort((a, b) => b.bytes - a.bytes).slice(0, 4);
    console.log(
      `installed footprint: node_modules/redkite ${kibibytes(packageBytes(redkite))}; with its ${closure.length - 1} ` +
        `production dependencies (peers not counted) ${mebibytes(closureBytes)}; largest: ` +
        largest.map(({ name, bytes }) => `${name} ${mebibytes(bytes)}`).join(', '),
    );
  });

  it('runs `redkite --version` from compiled JavaScript, with no tsx installed', () => {
    expect(fs.existsSync(path.join(app, 'node_modules', 'tsx'))).toBe(false);
    const bin = path.join(app, 'node_modules', '.bin', 'redkite');
    expect(run(bin, ['--version'], app).trim()).toBe(version);
  });

  it('exports the CRD as redkite/redkite-crd.k8s.yaml', () => {
    const crd = require.resolve('redkite/redkite-crd.k8s.yaml', { paths: [app] });
    expect(fs.readFileSync(crd, 'utf8')).toBe(fs.readFileSync(path.join(root, 'dist', 'redkite-crd.k8s.yaml'), 'utf8'));
  });

  describe('cdk8s synth of the README example', () => {
    let fromSources: Record<string, string>;
    beforeAll(() => {
      fromSources = synthesizeExample();
    });

    it('writes into cdk8s.yaml\'s output what the repository\'s sources write, with the release of dist/ first', () => {
      run(process.execPath, [cdk8sCli, 'synth', '--check-upgrade=false'], app);
      const written = readFolder(path.join(app, 'manifests'));
      expect(written).toEqual(fromSources);
      const release = ['redkite-crd.k8s.yaml', 'redkite-operator.k8s.yaml'].flatMap((file) => documentsOf(fs.readFileSync(path.join(root, 'dist', file), 'utf8')));
      expect(documentsOf(written['app.k8s.yaml']).slice(0, release.length)).toEqual(release);
      expect(fs.existsSync(path.join(app, 'dist'))).toBe(false);
    }, 180_000);

    it('prints the same YAML with --stdout and writes no file', () => {
      fs.rmSync(path.join(app, 'manifests'), { recursive: true, force: true });
      const printed = run(process.execPath, [cdk8sCli, 'synth', '--stdout', '--check-upgrade=false'], app);
      expect(printed).toBe(fromSources['app.k8s.yaml']);
      expect(fs.existsSync(path.join(app, 'manifests'))).toBe(false);
      expect(fs.existsSync(path.join(app, 'dist'))).toBe(false);
    }, 180_000);
  });
});
