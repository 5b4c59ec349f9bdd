import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';

/** Paths of the control-plane binaries. */
export interface ControlPlaneBinaries {
  readonly etcd: string;
  readonly kubeApiServer: string;
  readonly kubeControllerManager: string;
}

/** The binaries are missing and could not be built; the message says what to install or set. */
export class BinariesUnavailableError extends Error {
  override readonly name = 'BinariesUnavailableError';
}

const BUILD_SCRIPT = join(__dirname, 'build-binaries.sh');

/**
 * Locates the control-plane binaries through `build-binaries.sh`, which honours `KUBEBUILDER_ASSETS` and
 * `TEST_ASSET_*`, uses the versioned cache, and builds what is missing (minutes on a cold cache).
 * Progress goes to `onProgress` line by line.
 */
export async function locateControlPlaneBinaries(onProgress: (line: string) => void = () => undefined): Promise<ControlPlaneBinaries> {
  const { stdout, stderr, exitCode } = await new Promise<{ stdout: string; stderr: string; exitCode: number }>((resolve) => {
    const child = execFile('bash', [BUILD_SCRIPT], { maxBuffer: 64 * 1024 * 1024 }, (error, out, err) => {
      resolve({ stdout: out, stderr: err, exitCode: error ? Number((error as { code?: unknown }).code ?? 1) || 1 : 0 });
    });
    child.stderr?.on('data', (chunk: Buffer) => chunk.toString().split('\n').filter(Boolean).forEach((line) => onProgress(line)));
  });
  if (exitCode !== 0) {
    throw new BinariesUnavailableError(
      `the control-plane binaries are missing and could not be built (bash ${BUILD_SCRIPT} exited ${exitCode}).\n${stderr.trim()}\n` +
        'Fix: install Go >= 1.24 and run `npm run cluster:build`, or set KUBEBUILDER_ASSETS to a folder holding ' +
        'etcd, kube-apiserver and kube-controller-manager (or TEST_ASSET_ETCD / TEST_ASSET_KUBE_APISERVER / ' +
        'TEST_ASSET_KUBE_CONTROLLER_MANAGER).',
    );
  }
  const paths = new Map(stdout.split('\n').filter((line) => line.includes('=')).map((line) => {
    const separator = line.indexOf('=');
    return [line.slice(0, separator), line.slice(separator + 1)] as const;
  }));
  const pick = (name: string): string => {
    const path = paths.get(name);
    if (!path) throw new BinariesUnavailableError(`${BUILD_SCRIPT} did not report a path for ${name}; its output was:\n${stdout}`);
    return path;
  };
  return { etcd: pick('etcd'), kubeApiServer: pick('kube-apiserver'), kubeControllerManager: pick('kube-controller-manager') };
}

/** Locates redis-server, redis-sentinel and redis-cli on the PATH; throws with install instructions otherwise. */
export function locateRedisBinaries(): { redisServer: string; redisSentinel: string; redisCli: string } {
  const find = (name: string): string => {
    for (const folder of (process.env.PATH ?? '').split(':').concat(['/usr/bin', '/usr/local/bin'])) {
      const candidate = join(folder, name);
      try {
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not in this folder
      }
    }
    throw new BinariesUnavailableError(
      `${name} is not installed. The node agent runs pods of Redis images with the host's Redis: ` +
        'install it (Debian/Ubuntu: `sudo apt-get install -y redis-server redis-sentinel`; macOS: `brew install redis`).',
    );
  };
  return { redisServer: find('redis-server'), redisSentinel: find('redis-sentinel'), redisCli: find('redis-cli') };
}
