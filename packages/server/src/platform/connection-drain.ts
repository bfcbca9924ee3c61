import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** How often, while the server drains, connections without a request in progress are ended. */
const sweepEveryMs = 250;

/**
 * Ends, while the server drains, every connection that has no request in progress. Node's
 * `server.close()` closes idle keep-alive connections once, when it starts: a connection that has
 * not sent a request yet (a browser's speculative connection, a proxy's pre-opened one, an HTTP
 * client pool's spare) is not idle to it, and one whose response ends later (a stream ended by its
 * preClose hook) becomes idle after that one sweep. Either held a clean stop until its client gave
 * up, about 70 s. A request in progress is never cut: it finishes, and its connection goes after.
 */
export class ConnectionDrain {
  private readonly sockets = new Set<Socket>();

  constructor(private readonly server: Server) {
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  /** Runs `close` (the server's), ending unused connections until it has finished. */
  async during(close: () => Promise<void>): Promise<void> {
    const sweeper = setInterval(() => this.endUnused(), sweepEveryMs);
    try {
      await close();
    } finally {
      clearInterval(sweeper);
    }
  }

  private endUnused(): void {
    this.server.closeIdleConnections();
    for (const socket of this.sockets) if (socket.bytesRead === 0) socket.destroy();
  }
}
