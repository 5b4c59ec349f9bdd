import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);
const BUILD_SCRIPT = path.join(__dirname, '..', 'build-tools.sh');

/** The install-path checkers built from Go modules (test/install/build-tools.sh). */
export interface InstallTools {
  readonly helm: string;
  readonly kustomize: string;
  readonly argocdLuaHealth: string;
}

/** A cold build of helm takes minutes on 2 cores; a cached one returns at once. */
export const INSTALL_TOOLS_TIMEOUT_MILLISECONDS = 20 * 60_000;

let tools: Promise<InstallTools> | undefined;

/**
 * Builds (once per worker, then from ~/.cache/redkite/bin) and locates helm, kustomize and the Argo CD Lua health
 * runner. Fails with what to install when Go is missing and nothing is cached.
 */
export function installTools(): Promise<InstallTools> {
  tools ??= execFileAsync('bash', [BUILD_SCRIPT], { maxBuffer: 16 * 1024 * 1024 })
    .then(({ stdout }) => {
      const paths = Object.fromEntries(stdout.trim().split('\n').map((line) => line.split('=') as [string, string]));
      return { helm: paths['helm'], kustomize: paths['kustomize'], argocdLuaHealth: paths['argocd-lua-health'] };
    })
    .catch((error: { stderr?: string; message: string }) => {
      throw new Error(`building the install-path checkers failed (bash test/install/build-tools.sh): ${error.message}\n${error.stderr ?? ''}`);
    });
  return tools;
}

/** Runs a tool and resolves its stdout; rejects with its stderr. */
export async function runTool(tool: string, args: readonly string[], options: { input?: string; cwd?: string } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(tool, [...args], { cwd: options.cwd, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${path.basename(tool)} ${args.join(' ')} failed: ${error.message}\n${stderr}`));
      else resolve(stdout);
    });
    if (options.input !== undefined) child.stdin!.end(options.input);
  });
}
