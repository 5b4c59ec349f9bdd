import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { findTaggedProcesses } from '../cluster/process/process-tag';
import { E2E_TEST_TIMEOUT_MILLISECONDS, waitFor } from './support';

jest.setTimeout(E2E_TEST_TIMEOUT_MILLISECONDS);

const run = promisify(execFile);
const cli = resolve(__dirname, '..', 'cluster', 'cli.ts');
const repositoryRoot = resolve(__dirname, '..', '..');

/** Processes whose command line mentions the state directory (etcd's data dir is elsewhere, the tag catches it). */
function processesMentioning(stateDir: string): string[] {
  return findTaggedProcesses(stateDir).map((found) => `${found.pid} ${found.commandLine}`);
}

describe('cluster:up and cluster:down', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'redkite-cli-e2e-'));
  afterAll(async () => {
    await run(process.execPath, ['--import', 'tsx', cli, 'down', '--state-dir', stateDir], { cwd: repositoryRoot }).catch(() => undefined);
    rmSync(stateDir, { recursive: true, force: true });
  });

  it('starts a cluster in the background whose node kubectl sees Ready, and stops it without leaving a process', async () => {
    const up = await run(process.execPath, ['--import', 'tsx', cli, 'up', '--state-dir', stateDir], { cwd: repositoryRoot });
    const kubeconfig = /^KUBECONFIG=(.+)$/m.exec(up.stdout)?.[1];
    expect(kubeconfig).toBe(join(stateDir, 'kubeconfig'));
    expect(processesMentioning(stateDir).length).toBeGreaterThanOrEqual(4);

    await waitFor(async () => {
      const nodes = await run('kubectl', ['--kubeconfig', kubeconfig!, 'get', 'nodes', '--no-headers']);
      return /\sReady\s/.test(nodes.stdout);
    }, { description: 'kubectl get nodes showing a Ready node', timeoutMs: 30_000 });

    await run(process.execPath, ['--import', 'tsx', cli, 'down', '--state-dir', stateDir], { cwd: repositoryRoot });
    expect(processesMentioning(stateDir)).toEqual([]);
  });
});
