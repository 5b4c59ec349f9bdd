import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildApp } from '../../examples/gitops-app';

/**
 * Synthesizes the README example from the repository's sources as `cdk8s synth` runs it (the CLI names its output
 * folder in CDK8S_OUTDIR) and returns the files it wrote, by name.
 */
export function synthesizeExample(): Record<string, string> {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'redkite-readme-'));
  const previous = process.env.CDK8S_OUTDIR;
  process.env.CDK8S_OUTDIR = outdir;
  try {
    buildApp().synth();
    return readFolder(outdir);
  } finally {
    if (previous === undefined) delete process.env.CDK8S_OUTDIR;
    else process.env.CDK8S_OUTDIR = previous;
    fs.rmSync(outdir, { recursive: true, force: true });
  }
}

/** Every file of a folder (not recursive), by name, in name order. */
export function readFolder(folder: string): Record<string, string> {
  return Object.fromEntries(fs.readdirSync(folder).sort().map((file) => [file, fs.readFileSync(path.join(folder, file), 'utf8')]));
}
