import { execFile, execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';

const root = path.join(__dirname, '..', '..', '..');
const execFileAsync = promisify(execFile);

/** The tools `npm run image:build` and the image test need, with the Debian packages that bring them. */
const REQUIRED_TOOLS = ['buildah', 'runc', 'mmdebstrap', 'podman'];

function missingTools(): string[] {
  return REQUIRED_TOOLS.filter((tool) => {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
      return false;
    } catch {
      return true;
    }
  });
}

/** What image/build.sh reported. */
export interface BuiltImage {
  readonly reference: string;
  readonly sizeBytes: number;
  readonly log: string;
}

/**
 * Builds the operator image from the working tree with `npm run image:build` (buildah layer caching makes a
 * rebuild of unchanged sources take seconds; the base image comes from ~/.cache/redkite). Throws with the way to
 * get the tools when they are missing.
 */
export async function buildOperatorImage(): Promise<BuiltImage> {
  const missing = missingTools();
  if (missing.length > 0) {
    throw new Error(`${missing.join(', ')} not found: the operator image test needs Debian's buildah, runc, mmdebstrap and podman (apt-get update && apt-get install -y buildah runc mmdebstrap podman; .ci/run does this)`);
  }
  const { stdout, stderr } = await execFileAsync('bash', [path.join(root, 'image', 'build.sh')], { cwd: root, maxBuffer: 64 * 1024 * 1024 }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
    throw new Error(`npm run image:build failed: ${error.message}\n${error.stderr ?? ''}`);
  });
  const match = /^image (\S+): \d+ MB \((\d+) bytes/m.exec(stdout);
  if (!match) throw new Error(`image/build.sh printed no image size:\n${stdout}\n${stderr}`);
  return { reference: match[1], sizeBytes: Number(match[2]), log: `${stderr}${stdout}` };
}
