import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { testTls } from './tls.js';

/** What one path of a held endpoint has seen. */
export interface PathCounts {
  arrived: number;
  /** Requests received and not answered yet. */
  open: number;
  /** The most that were open at the same moment. */
  mostOpen: number;
  answered: number;
}

/**
 * An HTTPS endpoint on loopback with a certificate from the test CA that answers 200 at once,
 * except on the paths the test holds: their requests stay open until the test releases the path.
 * A slow receiver without a timer, so that nothing races the sender or a loaded machine: the test
 * waits for what it needs to have happened (`until`), then lets the requests go.
 */
export class HeldEndpoint {
  private readonly counts = new Map<string, PathCounts>();
  private readonly gates = new Map<string, { released: Promise<void>; release: () => void }>();
  private readonly watchers = new Set<() => void>();

  private constructor(private readonly server: Server) {}

  static async start(): Promise<HeldEndpoint> {
    const { key, cert } = testTls();
    const endpoint = new HeldEndpoint(createServer({ key, cert }));
    endpoint.server.on('request', (request, response) => {
      request.resume();
      request.on('end', () => {
        const counts = endpoint.of(request.url ?? '/');
        counts.arrived += 1;
        counts.open += 1;
        counts.mostOpen = Math.max(counts.mostOpen, counts.open);
        endpoint.changed();
        const gate = endpoint.gates.get(request.url ?? '/');
        void (gate?.released ?? Promise.resolve()).then(() => {
          counts.open -= 1;
          if (response.writable) {
            response.writeHead(200, { 'content-type': 'text/plain' });
            response.end('ok');
            counts.answered += 1;
          }
          endpoint.changed();
        });
      });
    });
    await new Promise<void>((resolve) => endpoint.server.listen(0, '127.0.0.1', resolve));
    return endpoint;
  }

  /** https://localhost:PORT + path: a name, so connections go through the guarded DNS lookup. */
  url(path: string): string {
    return `https://localhost:${(this.server.address() as AddressInfo).port}${path}`;
  }

  /** Requests to `path` from now on wait for `release(path)`. */
  hold(path: string): void {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    this.gates.set(path, { released, release });
  }

  release(path: string): void {
    this.gates.get(path)?.release();
    this.gates.delete(path);
  }

  /** A copy of what `path` has seen so far. */
  seen(path: string): PathCounts {
    return { ...this.of(path) };
  }

  /** Resolves once what `path` has seen satisfies `check`: as soon as it happens, no polling. */
  until(path: string, check: (counts: PathCounts) => boolean): Promise<PathCounts> {
    return new Promise((resolve) => {
      const look = () => {
        if (!check(this.of(path))) return;
        this.watchers.delete(look);
        resolve(this.seen(path));
      };
      this.watchers.add(look);
      look();
    });
  }

  async close(): Promise<void> {
    for (const path of [...this.gates.keys()]) this.release(path);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private of(path: string): PathCounts {
    let counts = this.counts.get(path);
    if (!counts) {
      counts = { arrived: 0, open: 0, mostOpen: 0, answered: 0 };
      this.counts.set(path, counts);
    }
    return counts;
  }

  private changed(): void {
    for (const look of [...this.watchers]) look();
  }
}
