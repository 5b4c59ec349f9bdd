import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import type { V1Probe } from '@kubernetes/client-node';

/** Which probe: they differ only in their initial state and in what a result does. */
export type ProbeKind = 'startup' | 'liveness' | 'readiness';

/** How probe actions reach the container. */
export interface ProbeTarget {
  podIp(): string;
  /** Runs an exec probe's command as a pod process; resolves true on exit code 0 within the timeout. */
  exec(command: readonly string[], timeoutMilliseconds: number): Promise<boolean>;
  /** Resolves a named container port. */
  resolvePort(port: number | string): number | undefined;
}

/**
 * Runs one probe with the kubelet's semantics: first run after `initialDelaySeconds`, then every
 * `periodSeconds`, each attempt bounded by `timeoutSeconds`; the result flips to healthy after
 * `successThreshold` consecutive successes and to unhealthy after `failureThreshold` consecutive failures.
 * Readiness and startup start unhealthy, liveness starts healthy. `onChange` is called on every flip.
 */
export class ProbeRunner {
  private healthyNow: boolean;
  private consecutiveSuccesses = 0;
  private consecutiveFailures = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    readonly kind: ProbeKind,
    private readonly probe: V1Probe,
    private readonly target: ProbeTarget,
    private readonly onChange: (healthy: boolean) => void,
  ) {
    this.healthyNow = kind === 'liveness';
  }

  /** The current result. */
  get healthy(): boolean {
    return this.healthyNow;
  }

  start(): void {
    this.schedule((this.probe.initialDelaySeconds ?? 0) * 1000);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(delayMilliseconds: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.runOnce(), delayMilliseconds);
  }

  private async runOnce(): Promise<void> {
    const started = Date.now();
    const succeeded = await this.attempt().catch(() => false);
    if (this.stopped) return;
    if (succeeded) {
      this.consecutiveSuccesses++;
      this.consecutiveFailures = 0;
      // successThreshold must be 1 for liveness and startup probes (API validation).
      if (!this.healthyNow && this.consecutiveSuccesses >= (this.probe.successThreshold ?? 1)) this.flip(true);
    } else {
      this.consecutiveFailures++;
      this.consecutiveSuccesses = 0;
      if (this.healthyNow && this.consecutiveFailures >= (this.probe.failureThreshold ?? 3)) this.flip(false);
      // A startup or liveness probe that keeps failing reports each threshold crossing (the container is killed).
      else if (!this.healthyNow && this.kind !== 'readiness' && this.consecutiveFailures === (this.probe.failureThreshold ?? 3)) this.onChange(false);
    }
    const periodMilliseconds = (this.probe.periodSeconds ?? 10) * 1000;
    this.schedule(Math.max(0, periodMilliseconds - (Date.now() - started)));
  }

  private flip(healthy: boolean): void {
    this.healthyNow = healthy;
    this.onChange(healthy);
  }

  private attempt(): Promise<boolean> {
    const timeoutMilliseconds = (this.probe.timeoutSeconds ?? 1) * 1000;
    if (this.probe.exec) return this.target.exec(this.probe.exec.command ?? [], timeoutMilliseconds);
    if (this.probe.tcpSocket) {
      const port = this.target.resolvePort(this.probe.tcpSocket.port as number | string);
      return port === undefined ? Promise.resolve(false) : tcpConnects(this.probe.tcpSocket.host || this.target.podIp(), port, timeoutMilliseconds);
    }
    if (this.probe.httpGet) {
      const get = this.probe.httpGet;
      const port = this.target.resolvePort(get.port as number | string);
      if (port === undefined) return Promise.resolve(false);
      return httpAnswersOk(get.scheme === 'HTTPS', get.host || this.target.podIp(), port, get.path ?? '/', Object.fromEntries((get.httpHeaders ?? []).map((header) => [header.name, header.value])), timeoutMilliseconds);
    }
    // gRPC probes are not supported: report failure rather than pretend.
    return Promise.resolve(false);
  }
}

function tcpConnects(host: string, port: number, timeoutMilliseconds: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: timeoutMilliseconds });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('timeout', () => { socket.destroy(); resolve(false); });
    socket.once('error', () => resolve(false));
  });
}

function httpAnswersOk(https: boolean, host: string, port: number, path: string, headers: Record<string, string>, timeoutMilliseconds: number): Promise<boolean> {
  return new Promise((resolve) => {
    const send = https ? httpsRequest : httpRequest;
    const request = send({ host, port, path, headers, timeout: timeoutMilliseconds, rejectUnauthorized: false }, (response) => {
      response.resume();
      resolve((response.statusCode ?? 0) >= 200 && (response.statusCode ?? 0) < 400);
    });
    request.once('timeout', () => { request.destroy(); resolve(false); });
    request.once('error', () => resolve(false));
    request.end();
  });
}
