import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RedisEndpoint } from '../../operator/redis';
import { waitUntil } from './wait-until';

/** The password every test server requires, and uses as `masterauth` towards its primary. */
export const TEST_REDIS_PASSWORD = 'redkite-test-password';

/** Options of {@link RedisServerProcess.start}. */
export interface RedisServerOptions {
  /** Loopback address the server binds to and connects from (`bind-source-addr`). */
  readonly host: string;
  /** @default 6379 */
  readonly port?: number;
  /** @default TEST_REDIS_PASSWORD */
  readonly password?: string;
  /** Start as a replica of this server. @default - start as a primary */
  readonly replicaOf?: { readonly host: string; readonly port?: number };
  /** More `--name value` settings, e.g. `{ 'min-replicas-to-write': '1' }`. @default {} */
  readonly config?: Readonly<Record<string, string>>;
}

/** Settings every test server gets: fast replication on loopback, nothing written to disk but a tmp dir. */
const BASE_CONFIG: Readonly<Record<string, string>> = {
  save: '',
  appendonly: 'no',
  // The primary pings replicas every second so `master_last_io_seconds_ago` stays fresh (failover veto).
  'repl-ping-replica-period': '1',
  // 7.0 waits 5 s by default before a diskless full sync, to batch replicas; tests want it now.
  'repl-diskless-sync-delay': '0',
  'protected-mode': 'no',
  loglevel: 'warning',
};

const livingProcesses = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of livingProcesses) {
    child.kill('SIGKILL');
  }
});

/** Fails with the install hint when a Redis binary is missing from PATH. */
export function requireRedisBinary(binary: 'redis-server' | 'redis-sentinel' = 'redis-server'): void {
  const found = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  if (found.error !== undefined || found.status !== 0) {
    const packageName = binary === 'redis-server' ? 'redis-server' : 'redis-sentinel';
    throw new Error(`${binary} not found: install redis-server: apt-get install -y ${packageName}`, {
      cause: found.error,
    });
  }
}

/**
 * A real `redis-server` (or `redis-sentinel`) child process on its own loopback address. It can be killed,
 * frozen (SIGSTOP), thawed and restarted on the same address with the same arguments.
 */
export class ManagedRedisProcess {
  private child: ChildProcess | undefined;
  private output = '';

  protected constructor(
    readonly binary: 'redis-server' | 'redis-sentinel',
    readonly host: string,
    readonly port: number,
    private readonly args: () => readonly string[],
    /** Working directory (data, sentinel config). Removed by {@link stop}. */
    readonly directory: string,
  ) {}

  /** Spawns the process and resolves once it accepts TCP connections. */
  async spawn(): Promise<void> {
    if (this.child !== undefined) {
      throw new Error(`${this.describe()} is already running`);
    }
    this.output = '';
    const child = spawn(this.binary, [...this.args()], { cwd: this.directory, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    livingProcesses.add(child);
    const keepTail = (chunk: Buffer): void => {
      this.output = (this.output + chunk.toString()).slice(-4000);
    };
    child.stdout?.on('data', keepTail);
    child.stderr?.on('data', keepTail);
    child.once('exit', () => {
      livingProcesses.delete(child);
      if (this.child === child) {
        this.child = undefined;
      }
    });
    try {
      await waitUntil(
        `${this.describe()} accepts connections`,
        () => {
          if (this.child !== child) {
            throw new Error(`${this.describe()} exited during start-up:\n${this.output}`);
          }
          return acceptsConnections(this.host, this.port);
        },
        { timeoutMilliseconds: 10_000, pollIntervalMilliseconds: 10 },
      );
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    }
  }

  /** Process id while running. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  /** Sends `signal` and, for a terminating signal, resolves once the process has exited. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (child === undefined) {
      return;
    }
    if (signal === 'SIGKILL' || signal === 'SIGTERM') {
      // A frozen process must be thawed for SIGTERM to be handled.
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill(signal);
      if (signal === 'SIGTERM') {
        child.kill('SIGCONT');
      }
      await exited;
      return;
    }
    child.kill(signal);
  }

  /** SIGSTOP: the kernel still accepts connections, the process answers nothing. */
  freeze(): Promise<void> {
    return this.kill('SIGSTOP');
  }

  /** SIGCONT after {@link freeze}. */
  thaw(): Promise<void> {
    return this.kill('SIGCONT');
  }

  /** Kills the process (if running) and removes its directory. */
  async stop(): Promise<void> {
    await this.kill('SIGKILL');
    rmSync(this.directory, { recursive: true, force: true });
  }

  /** Last few KiB of the process' output, for failure messages. */
  get recentOutput(): string {
    return this.output;
  }

  protected describe(): string {
    return `${this.binary} on ${this.host}:${this.port}`;
  }
}

/** A `redis-server` for tests: auth on, `bind-source-addr` set, no persistence. */
export class RedisServerProcess extends ManagedRedisProcess {
  readonly password: string;
  private replicaOf: RedisServerOptions['replicaOf'];

  private constructor(options: RedisServerOptions, directory: string) {
    const port = options.port ?? 6379;
    super('redis-server', options.host, port, () => this.commandLine(options), directory);
    this.password = options.password ?? TEST_REDIS_PASSWORD;
    this.replicaOf = options.replicaOf;
  }

  /** Starts a server and waits until it accepts connections. */
  static async start(options: RedisServerOptions): Promise<RedisServerProcess> {
    requireRedisBinary('redis-server');
    const server = new RedisServerProcess(options, mkdtempSync(join(tmpdir(), 'redkite-redis-')));
    await server.spawn();
    return server;
  }

  /** How the admin code and clients reach this server. */
  get endpoint(): RedisEndpoint {
    return { host: this.host, port: this.port, password: this.password };
  }

  /**
   * Starts the process again on the same address after a kill, with an empty data set (no persistence),
   * optionally as a replica of another server, like a restarted pod the controller then repairs.
   */
  async restart(options: { readonly replicaOf?: RedisServerOptions['replicaOf'] } = {}): Promise<void> {
    await this.kill('SIGKILL');
    this.replicaOf = options.replicaOf;
    await this.spawn();
  }

  private commandLine(options: RedisServerOptions): string[] {
    const password = options.password ?? TEST_REDIS_PASSWORD;
    const config: Record<string, string> = {
      ...BASE_CONFIG,
      bind: options.host,
      port: String(options.port ?? 6379),
      'bind-source-addr': options.host,
      requirepass: password,
      masterauth: password,
      dir: this.directory,
      ...options.config,
    };
    const args = Object.entries(config).flatMap(([name, value]) => [`--${name}`, value]);
    if (this.replicaOf !== undefined) {
      args.push('--replicaof', this.replicaOf.host, String(this.replicaOf.port ?? 6379));
    }
    return args;
  }
}

/** Starts one server per host, all primaries unless `replicaOf` says otherwise; stops them all on failure. */
export async function startRedisServers(
  hosts: readonly string[],
  options: Omit<RedisServerOptions, 'host'> = {},
): Promise<RedisServerProcess[]> {
  const started = await Promise.allSettled(hosts.map((host) => RedisServerProcess.start({ ...options, host })));
  const failed = started.find((result) => result.status === 'rejected');
  if (failed !== undefined) {
    await Promise.all(started.map((result) => (result.status === 'fulfilled' ? result.value.stop() : undefined)));
    throw (failed as PromiseRejectedResult).reason;
  }
  return started.map((result) => (result as PromiseFulfilledResult<RedisServerProcess>).value);
}

function acceptsConnections(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
