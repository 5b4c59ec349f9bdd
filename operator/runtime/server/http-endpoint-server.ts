import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { BindAddress } from './bind-address';

/** Answers one GET path. */
export type EndpointHandler = () => Promise<{ readonly statusCode: number; readonly contentType: string; readonly body: string }>;

/** A tiny `node:http` server for the `/metrics` and probe endpoints. */
export class HttpEndpointServer {
  private readonly server: http.Server;

  constructor(
    private readonly name: string,
    private readonly endpoints: Readonly<Record<string, EndpointHandler>>,
    private readonly logger: Logger,
  ) {
    this.server = http.createServer((request, response) => {
      void this.handle(request, response);
    });
    // Scrapers and kubelets reuse connections; do not let them hold shutdown up.
    this.server.keepAliveTimeout = 5_000;
  }

  /** Listens and resolves with the bound port. */
  listen(address: BindAddress): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(address.port, address.host, () => {
        this.server.off('error', reject);
        const port = (this.server.address() as AddressInfo).port;
        this.logger.info({ server: this.name, host: address.host, port }, 'serving');
        resolve(port);
      });
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.server.listening) {
        resolve();
        return;
      }
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const handler = this.endpoints[path];
    if (request.method !== 'GET' || !handler) {
      response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
      return;
    }
    try {
      const answer = await handler();
      response.writeHead(answer.statusCode, { 'Content-Type': answer.contentType }).end(answer.body);
    } catch (error) {
      this.logger.error({ err: error, server: this.name, path }, 'endpoint failed');
      response.writeHead(500, { 'Content-Type': 'text/plain' }).end('internal error\n');
    }
  }
}
