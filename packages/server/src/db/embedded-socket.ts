import { Duplex } from 'node:stream';

/** Where an embedded socket's session lives (embedded.ts): it outlasts the thread a stopped statement ends. */
export interface SessionHost {
  /** PGlite's answer to a startup packet, which is the same for every client. */
  readonly greeting: Buffer;
  /** A session for `socket`; a host that cannot serve fails the socket instead. */
  attach(socket: EmbeddedSocket): number;
  write(session: number, bytes: Uint8Array): void;
  detach(session: number): void;
}

/**
 * What pg takes for a socket to the embedded database: its bytes go to the database's thread as
 * one session, and PGlite's answers come back, so that pg speaks to PGlite as to PostgreSQL. pg
 * corks its writes, so the messages of one statement cross to the thread together.
 *
 * Connecting costs nothing and waits for no one: the startup packet, pg's first write, is answered
 * here with PGlite's greeting, so a new connection is never refused because a long statement or a
 * reopened database holds the thread.
 */
export class EmbeddedSocket extends Duplex {
  private session = 0;
  private greeted = false;

  constructor(private readonly host: SessionHost) {
    super();
  }

  /** pg's call to reach its server. */
  connect(): this {
    this.session = this.host.attach(this);
    process.nextTick(() => {
      if (!this.destroyed) this.emit('connect');
    });
    return this;
  }

  /** TCP's settings, which pg sets and a thread does not have. */
  setNoDelay(): this {
    return this;
  }

  setKeepAlive(): this {
    return this;
  }

  /** pg lets an idle pooled socket stop holding the process; this one never holds it (embedded-thread.ts). */
  ref(): this {
    return this;
  }

  unref(): this {
    return this;
  }

  receive(bytes: Buffer): void {
    this.push(bytes);
  }

  fail(error: Error): void {
    this.destroy(error);
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.send(chunk);
    callback();
  }

  override _writev(chunks: { chunk: Buffer }[], callback: (error?: Error | null) => void): void {
    this.send(chunks.length === 1 ? chunks[0]!.chunk : Buffer.concat(chunks.map(({ chunk }) => chunk)));
    callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.host.detach(this.session);
    this.push(null);
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.host.detach(this.session);
    callback(error);
  }

  private send(bytes: Buffer): void {
    if (this.greeted) {
      this.host.write(this.session, bytes);
      return;
    }
    // pg sends its startup packet alone, in one write, and nothing more until it is answered.
    this.greeted = true;
    this.push(this.host.greeting);
  }
}
