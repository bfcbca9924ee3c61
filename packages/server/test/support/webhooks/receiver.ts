import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type KeyAndCertificate, testTls } from './tls.js';

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Answer after this long; a stall longer than the sender's timeout makes it give up. */
  delayMs?: number;
}

export type Responder = (request: ReceivedRequest) => Reply;

export interface ReceiverOptions {
  /** The certificate it presents; by default one from the test CA for localhost. */
  certificate?: KeyAndCertificate;
  /**
   * Closes a kept-alive connection that has been idle this long, without saying so in a Keep-Alive
   * header. It closes it when the next request arrives on it, before answering: what a sender sees
   * when its request crosses the receiver's close.
   */
  closeIdleAfterMs?: number;
}

/**
 * A real HTTPS endpoint on loopback with a certificate from the test CA. It records every request
 * and answers with what the test's responder says, and it notes how many requests for the same
 * delivery it was handling at once.
 */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  respond: Responder = () => ({ status: 200, body: 'ok' });
  /** The most requests for one delivery id that were open at the same moment. */
  maxConcurrentPerDelivery = 0;
  private readonly open = new Map<string, number>();
  private readonly server: Server;
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Connections opened to it, and kept-alive ones it closed on a request (closeIdleAfterMs). */
  connections = 0;
  closedIdle = 0;
  private readonly idleSince = new WeakMap<object, number>();

  private constructor(options: ReceiverOptions) {
    const { key, cert } = options.certificate ?? testTls();
    const closeIdleAfterMs = options.closeIdleAfterMs;
    // keepAliveTimeout 0: no Keep-Alive header, and the closing is left to closeIdleAfterMs.
    this.server = createServer({ key, cert, keepAliveTimeout: closeIdleAfterMs === undefined ? 60_000 : 0 }, (request, response) => {
      const idleSince = this.idleSince.get(request.socket);
      if (closeIdleAfterMs !== undefined && idleSince !== undefined && Date.now() - idleSince > closeIdleAfterMs) {
        this.closedIdle += 1;
        request.socket.destroy();
        return;
      }
      response.on('finish', () => this.idleSince.set(request.socket, Date.now()));
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const received = { path: request.url ?? '/', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
        this.requests.push(received);
        const deliveryId = String(request.headers['webhook-id'] ?? '');
        const openNow = (this.open.get(deliveryId) ?? 0) + 1;
        this.open.set(deliveryId, openNow);
        this.maxConcurrentPerDelivery = Math.max(this.maxConcurrentPerDelivery, openNow);
        const closed = () => this.open.set(deliveryId, (this.open.get(deliveryId) ?? 1) - 1);
        const reply = this.respond(received);
        const answer = () => {
          this.timers.delete(timer);
          closed();
          if (!response.writable) return;
          response.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
          response.end(reply.body ?? '');
        };
        const timer = setTimeout(answer, reply.delayMs ?? 0);
        this.timers.add(timer);
        response.on('close', () => {
          if (this.timers.has(timer)) {
            clearTimeout(timer);
            this.timers.delete(timer);
            closed();
          }
        });
      });
    });
  }

  static async start(options: ReceiverOptions = {}): Promise<Receiver> {
    const receiver = new Receiver(options);
    receiver.server.on('secureConnection', () => (receiver.connections += 1));
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  /** https://localhost:PORT + path: a name, so connections go through the guarded DNS lookup. */
  url(path = '/hook'): string {
    return `https://localhost:${(this.server.address() as AddressInfo).port}${path}`;
  }

  received(path: string): ReceivedRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
