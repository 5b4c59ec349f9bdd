import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const root = path.join(__dirname, '..', '..');

describe('imports/', () => {
  it('is exactly what cdk8s import generates from the CRD in dist/', () => {
    const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'redkite-imports-'));
    const cli = path.join(root, 'node_modules', 'cdk8s-cli', 'bin', 'cdk8s');
    execFileSync(process.execPath, [cli, 'import', 'dist/redkite-crd.k8s.yaml', '--output', outdir, '--check-upgrade=false'], { cwd: root, stdio: 'pipe' });
    const generated = fs.readdirSync(outdir).sort();
    expect(generated).toEqual(fs.readdirSync(path.join(root, 'imports')).sort());
    for (const file of generated) {
      expect(fs.readFileSync(path.join(outdir, file), 'utf8')).toBe(fs.readFileSync(path.join(root, 'imports', file), 'utf8'));
    }
  }, 60_000);
});
