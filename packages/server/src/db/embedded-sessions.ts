import type { PGlite } from '@electric-sql/pglite';
import { type EmbeddedError, type EmbeddedReply, type EmbeddedRequest, type EmbeddedTask, runningSlots } from './embedded-messages.js';
import { PreparedStatements } from './embedded-statements.js';
import { completeLength, idle, isTerminate, readAnswer, setStatementTexts, simpleQueryMessage, syncMessage } from './wire-protocol.js';

/**
 * PostgreSQL's own way of shortening one transaction's limit (the project's SQL runs this way):
 * PGlite accepts it and cannot enforce it, so the thread reads it and times the rest of the
 * transaction's statements with it.
 */
const localStatementTimeout = /^\s*SET\s+LOCAL\s+statement_timeout\s*(?:=|TO)\s*'?(\d+)'?\s*;?\s*$/i;

interface Session {
  id: number;
  input: Buffer;
  limitMs: number;
  queued: boolean;
}

type Turn = Session | EmbeddedTask;

/** One piece of memory holding `chunks` in order: the answer's own, so that it can be transferred. */
function joinedChunks(chunks: Uint8Array[]): Uint8Array {
  const joined = new Uint8Array(chunks.reduce((total, chunk) => total + chunk.byteLength, 0));
  let at = 0;
  for (const chunk of chunks) {
    joined.set(chunk, at);
    at += chunk.byteLength;
  }
  return joined;
}

export function asEmbeddedError(error: unknown): EmbeddedError {
  if (!(error instanceof Error)) return { message: String(error), fields: {} };
  const fields: EmbeddedError['fields'] = {};
  for (const [key, value] of Object.entries(error)) {
    if (typeof value === 'string' || typeof value === 'number') fields[key] = value;
  }
  return { message: error.message, fields };
}

/**
 * Shares PGlite's one session between the pg connections of the main thread, in the order their
 * messages come. A connection that leaves a transaction open keeps the session until its
 * ReadyForQuery says idle again, as its own backend would; the others wait their turn. The thread's
 * own tasks (COPY through a blob, LISTEN) take turns like a connection.
 *
 * Every turn is timed through `running`, memory the main thread reads to stop a turn that runs
 * past its limit by ending this thread.
 */
export class EmbeddedSessions {
  private readonly sessions = new Map<number, Session>();
  private readonly turns: Turn[] = [];
  /** The session inside a transaction (or an unfinished exchange): only its messages run. */
  private holder: Session | undefined;
  private pumping = false;
  private readonly listening = new Set<string>();
  private readonly prepared = new PreparedStatements();

  constructor(
    private readonly lite: PGlite,
    private readonly reply: (message: EmbeddedReply, transfer?: ArrayBuffer[]) => void,
    private readonly running: Float64Array,
    private readonly statementTimeoutMs: number,
  ) {}

  receive(request: EmbeddedRequest): void {
    switch (request.op) {
      case 'data': {
        const session = this.session(request.session);
        const bytes = Buffer.from(request.bytes.buffer, request.bytes.byteOffset, request.bytes.byteLength);
        session.input = session.input.length === 0 ? bytes : Buffer.concat([session.input, bytes]);
        if (session !== this.holder && !session.queued) {
          session.queued = true;
          this.turns.push(session);
        }
        break;
      }
      case 'disconnect':
        this.disconnect(request.session);
        break;
      default:
        this.turns.push(request);
    }
    void this.pump();
  }

  /** The main thread's connections start here with their first statement, past a startup the main thread answered. */
  private session(id: number): Session {
    let session = this.sessions.get(id);
    if (!session) {
      session = { id, input: Buffer.alloc(0), limitMs: this.statementTimeoutMs, queued: false };
      this.sessions.set(id, session);
    }
    return session;
  }

  private disconnect(id: number): void {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    session.input = Buffer.alloc(0);
    if (session !== this.holder) return;
    // The client left inside a transaction (its connection was destroyed): end the exchange it
    // may have left half-way, and roll back, so that the next client finds the session idle.
    this.holder = undefined;
    this.timed(0, this.statementTimeoutMs, () => this.run(Buffer.concat([syncMessage, simpleQueryMessage('ROLLBACK')])));
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      for (;;) {
        const holder = this.holder;
        if (holder) {
          if (!this.serve(holder)) return;
          continue;
        }
        const turn = this.turns.shift();
        if (!turn) return;
        if ('op' in turn) await this.perform(turn);
        else {
          turn.queued = false;
          if (this.sessions.has(turn.id)) this.serve(turn);
        }
      }
    } finally {
      this.pumping = false;
    }
  }

  /** Runs the complete messages `session` has sent; false when it has none yet. */
  private serve(session: Session): boolean {
    const length = completeLength(session.input);
    if (length === 0) return false;
    const messages = session.input.subarray(0, length);
    session.input = session.input.subarray(length);
    if (isTerminate(messages)) {
      this.disconnect(session.id);
      return true;
    }
    this.readLocalLimit(session, messages);
    const { answer, status } = this.timed(session.id, session.limitMs, () =>
      // The project's SQL lowers its transaction's limit (ai/project-reader.ts) and runs unprepared:
      // its tables are replaced under it (imports), which a kept plan would not survive.
      session.limitMs === this.statementTimeoutMs
        ? this.prepared.answer(messages, (sent, prefix) => this.run(sent, prefix))
        : this.run(messages),
    );
    // The answer's memory is its own (run()), so it moves to the main thread without a copy.
    this.reply({ kind: 'data', session: session.id, bytes: answer, status }, [answer.buffer as ArrayBuffer]);
    if (status === idle) {
      this.holder = undefined;
      session.limitMs = this.statementTimeoutMs;
      this.closeReleasedStatements();
      if (completeLength(session.input) > 0 && !session.queued) {
        session.queued = true;
        this.turns.push(session);
      }
    } else this.holder = session;
    return true;
  }

  private closeReleasedStatements(): void {
    const closing = this.prepared.takeReleased();
    if (closing) this.timed(0, this.statementTimeoutMs, () => this.run(closing));
  }

  private readLocalLimit(session: Session, messages: Buffer): void {
    for (const text of setStatementTexts(messages)) {
      const local = localStatementTimeout.exec(text);
      if (local) session.limitMs = Math.min(this.statementTimeoutMs, Number(local[1]) || this.statementTimeoutMs);
    }
  }

  /** PGlite's answer to `messages` in memory of its own, after passing on the notifications it carries. */
  private run(messages: Buffer, prefix?: Buffer): { answer: Buffer; status: number | undefined } {
    const chunks: Uint8Array[] = prefix ? [prefix] : [];
    // The streaming call, because execProtocolRaw also parses every answer with PGlite's own
    // JavaScript parser and keeps the results (a quarter of this thread's time, and memory that
    // only grows). It runs synchronously up to its end, since nothing is synced to a filesystem
    // (NODEFS writes through). A failure inside PGlite rejects it: unhandled, that ends this
    // thread, and the main thread reopens the database (embedded-thread.ts).
    void this.lite.execProtocolRawStream(messages, { syncToFs: false, onRawData: (chunk) => chunks.push(chunk.slice()) });
    const joined = chunks.length === 1 ? chunks[0]! : joinedChunks(chunks);
    const answer = Buffer.from(joined.buffer, joined.byteOffset, joined.byteLength);
    const { status, notifications, changedSchema } = readAnswer(answer);
    this.prepared.answered(changedSchema, status !== idle);
    for (const { channel, payload } of notifications) {
      if (this.listening.has(channel)) this.reply({ kind: 'notify', channel, payload });
    }
    return { answer, status };
  }

  private timed<T>(session: number, limitMs: number, work: () => T): T {
    this.startTiming(session, limitMs);
    try {
      return work();
    } finally {
      this.running[runningSlots.startedAt] = 0;
    }
  }

  private startTiming(session: number, limitMs: number): void {
    this.running[runningSlots.limitMs] = limitMs;
    this.running[runningSlots.session] = session;
    this.running[runningSlots.startedAt] = Date.now();
  }

  private async perform(task: EmbeddedTask): Promise<void> {
    this.startTiming(0, this.statementTimeoutMs);
    try {
      this.reply({ kind: 'done', id: task.id, result: await this.task(task) });
    } catch (error) {
      this.reply({ kind: 'failed', id: task.id, error: asEmbeddedError(error) });
    } finally {
      this.running[runningSlots.startedAt] = 0;
    }
  }

  private async task(task: EmbeddedTask): Promise<unknown> {
    switch (task.op) {
      case 'copyFrom':
        // Node's Blob copies its parts, shared memory (an ingest batch's) included; the DOM's types admit only unshared ones.
        await this.lite.query(task.sql, [], { blob: new Blob([task.rows as string | Uint8Array<ArrayBuffer>]) });
        return undefined;
      case 'copyTo': {
        const result = await this.lite.query(task.sql);
        return result.blob ? await result.blob.text() : '';
      }
      case 'listen':
        this.listening.add(task.channel);
        this.run(simpleQueryMessage(`LISTEN "${task.channel.replaceAll('"', '""')}"`));
        return undefined;
      case 'unlisten':
        this.listening.delete(task.channel);
        this.run(simpleQueryMessage(`UNLISTEN "${task.channel.replaceAll('"', '""')}"`));
        return undefined;
      case 'image': {
        const tarball = await this.lite.dumpDataDir('none');
        return new Uint8Array(await tarball.arrayBuffer());
      }
      case 'close':
        await this.lite.close();
        return undefined;
    }
  }
}
