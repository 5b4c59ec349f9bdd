/**
 * Probes for the fault-injection tests: Redis pods to inject into, and network checks that tell a cut link
 * (timeout) from a closed port (refused) and from a working one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { V1Pod } from '@kubernetes/client-node';

/** A plain `redis:7.2` pod, Ready once Redis answers; `args` go to redis-server. */
export function redisPod(name: string, options: { labels?: Record<string, string>; args?: string[]; claimName?: string } = {}): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: options.labels },
    spec: {
      terminationGracePeriodSeconds: 2,
      containers: [{
        name: 'redis',
        image: 'redis:7.2',
        args: options.args,
        ports: [{ name: 'redis', containerPort: 6379 }],
        readinessProbe: { exec: { command: ['redis-cli', 'ping'] }, periodSeconds: 1, timeoutSeconds: 1, failureThreshold: 1 },
        ...(options.claimName ? { volumeMounts: [{ name: 'data', mountPath: '/data' }] } : {}),
      }],
      ...(options.claimName ? { volumes: [{ name: 'data', persistentVolumeClaim: { claimName: options.claimName } }] } : {}),
    },
  };
}

/** How a TCP connection attempt ended. */
export type ConnectOutcome = 'connected' | 'timed out' | 'refused';

/**
 * Opens a TCP connection to `host:port` from `sourceAddress` (a pod's IP, to send what that pod would send;
 * undefined: the default 127.0.0.1) and closes it. A partitioned peer times out: its SYNs are dropped.
 */
export function connectFrom(sourceAddress: string | undefined, host: string, port = 6379, timeoutMilliseconds = 1000): Promise<ConnectOutcome> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, ...(sourceAddress ? { localAddress: sourceAddress } : {}) });
    const finish = (outcome: ConnectOutcome): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish('timed out'), timeoutMilliseconds);
    socket.once('connect', () => finish('connected'));
    socket.once('error', (error: NodeJS.ErrnoException) => finish(error.code === 'ECONNREFUSED' ? 'refused' : 'timed out'));
  });
}

/** What the pinger process has seen so far. */
export interface PingerProgress {
  readonly sent: number;
  readonly answered: number;
  /** PINGs sent and not answered yet. */
  readonly outstanding: number;
}

/**
 * `redis-pinger.ts` as a child process: one connection to Redis, a PING every 100 ms, progress on stdout. Start
 * it with a controller identity's spawn options to stand in for the controller's own Redis connection.
 */
export class PingerProcess {
  private latest: PingerProgress = { sent: 0, answered: 0, outstanding: 0 };
  private readonly child: ChildProcess;
  private exit: string | undefined;

  constructor(host: string, spawnOptions: { gid?: number } = {}) {
    this.child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'redis-pinger.ts'), host], {
      ...spawnOptions,
      cwd: join(__dirname, '..', '..', '..'),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    createInterface({ input: this.child.stdout! }).on('line', (line) => {
      this.latest = JSON.parse(line) as PingerProgress;
    });
    this.child.once('exit', (code, signal) => (this.exit = `pinger exited (${signal ?? `code ${code}`})`));
  }

  /** The latest progress; throws if the pinger died (its connection broke). */
  progress(): PingerProgress {
    if (this.exit) throw new Error(this.exit);
    return this.latest;
  }

  stop(): void {
    this.child.kill('SIGKILL');
  }
}
