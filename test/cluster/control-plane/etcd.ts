import { mkdirSync, rmSync } from 'node:fs';
import type { ProcessRegistry } from '../process/process-registry';
import { SupervisedProcess } from '../process/supervised-process';
import { waitUntil } from './wait-until';

/** How to start etcd. */
export interface EtcdOptions {
  readonly binary: string;
  /** Wiped and recreated; keep it on tmpfs (/dev/shm): etcd's fsyncs dominate apiserver latency otherwise. */
  readonly dataDir: string;
  readonly clientPort: number;
  readonly peerPort: number;
  readonly logFile: string;
  readonly stateDir: string;
  readonly registry: ProcessRegistry;
}

/** A running single-member etcd on loopback. */
export class RunningEtcd {
  private constructor(readonly clientUrl: string, private readonly etcdProcess: SupervisedProcess, private readonly dataDir: string) {}

  /** Starts etcd with a fresh data directory and waits until `/health` answers true. */
  static async start(options: EtcdOptions): Promise<RunningEtcd> {
    rmSync(options.dataDir, { recursive: true, force: true });
    mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
    const clientUrl = `http://127.0.0.1:${options.clientPort}`;
    const peerUrl = `http://127.0.0.1:${options.peerPort}`;
    const etcdProcess = await SupervisedProcess.start({
      name: 'etcd',
      command: options.binary,
      args: [
        '--name=redkite',
        `--data-dir=${options.dataDir}`,
        `--listen-client-urls=${clientUrl}`,
        `--advertise-client-urls=${clientUrl}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=redkite=${peerUrl}`,
        '--initial-cluster-state=new',
        // Test data is disposable: never wait for the disk.
        '--unsafe-no-fsync',
        '--log-level=warn',
      ],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      logFile: options.logFile,
      stateDir: options.stateDir,
      watchdogGraceSeconds: 5,
      registry: options.registry,
    });
    const etcd = new RunningEtcd(clientUrl, etcdProcess, options.dataDir);
    await waitUntil('etcd /health', async () => {
      const response = await fetch(`${clientUrl}/health`);
      return response.ok && ((await response.json()) as { health?: string }).health === 'true';
    }, { timeoutMilliseconds: 30_000, abortWhen: () => (etcdProcess.isRunning() ? undefined : `etcd exited; see ${options.logFile}`) });
    return etcd;
  }

  /**
   * Compacts the key space up to the current revision, so that any watch resuming from an older
   * resourceVersion gets 410 Gone (a fault the controller's informers must survive). Returns the revision.
   */
  async compactToCurrentRevision(): Promise<number> {
    // Any range request returns the store's current revision in its header (the grpc-gateway speaks JSON).
    const range = await this.gateway<{ header: { revision: string } }>('/v3/kv/range', { key: Buffer.from('/').toString('base64'), limit: 1 });
    const revision = Number(range.header.revision);
    await this.gateway('/v3/kv/compaction', { revision, physical: true });
    return revision;
  }

  private async gateway<T>(path: string, body: unknown): Promise<T> {
    const response = await fetch(`${this.clientUrl}${path}`, { method: 'POST', body: JSON.stringify(body) });
    const text = await response.text();
    if (!response.ok) throw new Error(`etcd ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  }

  /** Stops etcd and deletes its data directory. */
  async stop(): Promise<void> {
    await this.etcdProcess.stop(5000);
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
