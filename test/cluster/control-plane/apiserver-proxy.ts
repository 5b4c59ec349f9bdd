import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Agent, createServer, request as httpsRequest, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';

/** The watch-stall state of one proxy, for the control API. */
export interface WatchStallView {
  readonly stalled: boolean;
  /** Watch responses open through the proxy now. */
  readonly openWatches: number;
  /** Watch events received from the apiserver and not yet delivered (one per JSON line). */
  readonly heldEvents: number;
}

/** What a resume delivered. */
export interface WatchResumeResult extends WatchStallView {
  /** Events that had been held and were delivered, in their original order, by this resume. */
  readonly deliveredEvents: number;
}

/** Where the proxy forwards to and how it presents itself. */
export interface ApiServerProxyOptions {
  readonly upstreamUrl: string;
  readonly caCertificateFile: string;
  readonly servingCertificateFile: string;
  readonly servingKeyFile: string;
  readonly warn: (message: string, error?: unknown) => void;
}

// Headers of one hop only (RFC 9110 §7.6.1); node sets its own framing on each side.
const HOP_BY_HOP_HEADERS = ['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade'];

/**
 * A TLS-terminating proxy in front of kube-apiserver for one controller under test, so that its view of the
 * apiserver can fail on its own: `stallWatches()` holds back every watch event (the watch connections stay open,
 * new watches are accepted and get their response headers, but no event reaches the client) while every other
 * request — GET, LIST, POST, PATCH, DELETE — passes; `resumeWatches()` then delivers the held events in order on
 * the same connections, as a congested or briefly partitioned apiserver connection would. A watch the
 * apiserver ends during a stall (its timeout, a restart) is ended only after its held events. A client that
 * gives up on a silent watch closes it, and its held events are dropped with it; its next watch (or relist)
 * goes through the proxy like any request.
 *
 * Authentication is passed through as bearer tokens (the controller under test uses its ServiceAccount's token);
 * the proxy has no client certificate of its own, so a request without a token reaches the apiserver anonymous.
 */
export class ApiServerProxy {
  private readonly server: Server;
  private readonly agent: Agent;
  private readonly upstream: URL;
  private readonly watches = new Set<WatchRelay>();
  private stalled = false;

  constructor(private readonly options: ApiServerProxyOptions) {
    this.upstream = new URL(options.upstreamUrl);
    this.agent = new Agent({ keepAlive: true, ca: readFileSync(options.caCertificateFile) });
    this.server = createServer({ cert: readFileSync(options.servingCertificateFile), key: readFileSync(options.servingKeyFile) }, (request, response) => {
      this.forward(request, response);
    });
    this.server.on('upgrade', (_request, socket) => socket.end('HTTP/1.1 501 Not Implemented\r\n\r\n'));
  }

  /** Listens on a random port of 127.0.0.1; resolves the URL clients use. */
  listen(): Promise<string> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve(`https://127.0.0.1:${(this.server.address() as AddressInfo).port}`));
    });
  }

  /** From now on, watch events are held (already open watches and new ones alike). */
  stallWatches(): WatchStallView {
    this.stalled = true;
    return this.view();
  }

  /** Delivers everything held, in order, and lets events flow again. */
  resumeWatches(): WatchResumeResult {
    this.stalled = false;
    let deliveredEvents = 0;
    for (const relay of this.watches) deliveredEvents += relay.release();
    return { ...this.view(), deliveredEvents };
  }

  view(): WatchStallView {
    let heldEvents = 0;
    for (const relay of this.watches) heldEvents += relay.heldEvents;
    return { stalled: this.stalled, openWatches: this.watches.size, heldEvents };
  }

  /** Closes the listener and every connection through it. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
      this.agent.destroy();
    });
  }

  private forward(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', this.upstream);
    const isWatch = ['true', '1'].includes(url.searchParams.get('watch') ?? '') || url.pathname.includes('/watch/');
    const upstreamRequest = httpsRequest({
      protocol: this.upstream.protocol,
      hostname: this.upstream.hostname,
      port: this.upstream.port,
      method: request.method,
      path: request.url,
      headers: { ...withoutHopByHop(request.headers), host: this.upstream.host },
      agent: this.agent,
    });
    upstreamRequest.on('response', (upstreamResponse) => {
      response.writeHead(upstreamResponse.statusCode ?? 502, withoutHopByHop(upstreamResponse.headers));
      // A body cut short upstream must not leave the client waiting for the rest.
      upstreamResponse.on('error', () => response.destroy());
      if (!isWatch) {
        upstreamResponse.pipe(response);
        return;
      }
      // Events are small and must leave at once, not when a buffer fills.
      response.socket?.setNoDelay(true);
      response.flushHeaders();
      const relay = new WatchRelay(response, () => this.stalled);
      this.watches.add(relay);
      upstreamResponse.on('data', (chunk: Buffer) => relay.data(chunk));
      upstreamResponse.on('end', () => relay.end());
      response.on('close', () => this.watches.delete(relay));
    });
    upstreamRequest.on('error', (error) => {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      this.options.warn(`apiserver proxy: ${request.method} ${url.pathname} failed upstream`, error);
      response.writeHead(502, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'ServiceUnavailable', code: 502, message: `apiserver proxy: ${error.message}` }));
    });
    // A client that goes away (a watch it gave up on, an aborted request) takes its upstream request with it.
    response.on('close', () => {
      if (!response.writableFinished) upstreamRequest.destroy();
    });
    request.pipe(upstreamRequest);
  }
}

/** One watch response: passes chunks through, or holds them (and the end of the stream) while stalled. */
class WatchRelay {
  private held: Buffer[] = [];
  private heldLines = 0;
  private endHeld = false;

  constructor(private readonly downstream: ServerResponse, private readonly isStalled: () => boolean) {}

  get heldEvents(): number {
    return this.heldLines;
  }

  data(chunk: Buffer): void {
    if (this.isStalled() || this.held.length > 0) {
      this.held.push(chunk);
      this.heldLines += countNewlines(chunk);
      return;
    }
    this.downstream.write(chunk);
  }

  end(): void {
    if (this.isStalled() || this.held.length > 0) this.endHeld = true;
    else this.downstream.end();
  }

  /** Writes what was held; returns the number of events delivered. */
  release(): number {
    const delivered = this.heldLines;
    for (const chunk of this.held) this.downstream.write(chunk);
    this.held = [];
    this.heldLines = 0;
    if (this.endHeld) this.downstream.end();
    return delivered;
  }
}

function countNewlines(chunk: Buffer): number {
  let count = 0;
  for (let index = chunk.indexOf(10); index !== -1; index = chunk.indexOf(10, index + 1)) count++;
  return count;
}

function withoutHopByHop(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const copy: IncomingHttpHeaders = { ...headers };
  for (const name of HOP_BY_HOP_HEADERS) delete copy[name];
  return copy;
}
