import { MessageChannel, type MessagePort, type Worker } from 'node:worker_threads';
import type { LoadingDb } from '../db/connect.js';
import { ApiError } from '../platform/errors.js';
import { countRowsLoaded, ingestThreadsBusy } from '../platform/metrics.js';
import { startThread } from '../platform/threads.js';
import type { IngestResult } from './ingest.js';
import type { IngestJob, MainMessage, StatementRequest, ThreadError, ThreadMessage } from './ingest-messages.js';

/** Threads kept idle for the next uploads: starting one costs up to 0.7 s of CPU (the readers' modules, and tsx when run from the sources). */
const keepIdle = 2;

/**
 * The upload's bytes go to the thread in pieces of at least this much (but the last): a message for
 * each network chunk cost both threads 40–80 ms more CPU per 10 MiB when chunks were 4 KiB. Larger
 * pieces made the thread slower: strings of 128 KiB and more are made in V8's large-object space.
 */
const forwardBytes = 64 * 1024;

/** The thread ended during a job: it crashed (out of memory) or was stopped. */
class ThreadLost extends Error {}

/** One job on a thread, the main thread's half of the conversation of ingest-messages.ts: its outcome is `done`. */
class JobOnThread {
  readonly done: Promise<IngestResult>;
  private readonly port: MessagePort;
  private readonly reading: AsyncIterator<Buffer>;
  /** Errors raised on this side, by number: the thread names the one it failed with, and the caller gets that very error. */
  private readonly raised: unknown[] = [];
  private settle!: { resolve: (result: IngestResult) => void; reject: (error: unknown) => void };

  constructor(
    private readonly worker: Worker,
    job: IngestJob,
    source: AsyncIterable<Buffer>,
    private readonly db: LoadingDb,
  ) {
    this.reading = source[Symbol.asyncIterator]();
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.done = new Promise<IngestResult>((resolve, reject) => (this.settle = { resolve, reject })).finally(() => this.close());
    this.port.on('message', (message: ThreadMessage) => this.receive(message));
    worker.on('error', this.lost).on('exit', this.lost);
    worker.postMessage({ job, port: port2 }, [port2]);
  }

  private readonly lost = (cause: Error | number): void => {
    this.settle.reject(new ThreadLost(`The thread reading the upload ended: ${typeof cause === 'number' ? `exit code ${cause}` : cause.message}.`));
  };

  /** Stops talking to the thread, and stops reading the upload if the job ended before its end. */
  private close(): void {
    this.worker.off('error', this.lost).off('exit', this.lost);
    this.port.close();
    // The job's outcome is settled: a source that fails while it is closed changes nothing.
    this.reading.return?.().catch(() => undefined);
  }

  private receive(message: ThreadMessage): void {
    switch (message.op) {
      case 'read':
        return void this.forwardChunk();
      case 'loaded':
        return countRowsLoaded(message.load, message.rows);
      case 'done':
        return this.settle.resolve(message.result);
      case 'failed':
        return this.settle.reject(this.errorOf(message.error));
      default:
        return void this.runStatement(message);
    }
  }

  private post(message: MainMessage): void {
    this.port.postMessage(message);
  }

  /** The upload's next bytes, as they come, in a piece of about `forwardBytes`; the end once there are none. */
  private async forwardChunk(): Promise<void> {
    try {
      const chunks: Buffer[] = [];
      let size = 0;
      while (size < forwardBytes) {
        const next = await this.reading.next();
        if (next.done) break;
        chunks.push(next.value);
        size += next.value.length;
      }
      if (size === 0) return this.post({ op: 'end' });
      // Copied into memory of its own and moved: a socket's chunks may share their memory with others.
      const piece = Buffer.allocUnsafeSlow(size);
      let at = 0;
      for (const chunk of chunks) at += chunk.copy(piece, at);
      this.port.postMessage({ op: 'bytes', chunk: piece } satisfies MainMessage, [piece.buffer]);
    } catch (error) {
      this.post({ op: 'sourceFailed', mainError: this.raised.push(error) - 1 });
    }
  }

  private async runStatement(request: StatementRequest & { id: number }): Promise<void> {
    try {
      let rows: unknown[] = [];
      if (request.op === 'query') rows = await this.db.query(request.sql, request.params);
      else if (request.op === 'exec') await this.db.exec(request.sql);
      else await this.db.copyRows(request.target, request.rows, request.options);
      this.post({ op: 'answer', id: request.id, rows });
    } catch (error) {
      const { message, code } = error as { message: string; code?: string };
      this.post({ op: 'refused', id: request.id, message, code, mainError: this.raised.push(error) - 1 });
    }
  }

  private errorOf(error: ThreadError): unknown {
    if (error.mainError !== undefined) return this.raised[error.mainError];
    if (error.api) return new ApiError(error.api.code, error.message, error.api.details);
    return Object.assign(new Error(error.message), { stack: error.stack });
  }
}

/**
 * The threads that read and load uploaded files (ingest-worker.ts). Parsing a CSV or a workbook
 * and checking every value is most of an upload's CPU; on the main thread it came in synchronous
 * pieces that every other organization's requests waited behind. A thread per upload in
 * progress, taken from the idle ones or started; the main thread only passes the file's bytes
 * in and runs the thread's statements (COPY buffers come over whole).
 */
export class IngestThreads {
  private readonly idle: Worker[] = [];

  constructor(private readonly startThreadRunning: () => Worker = () => startThread('./ingest-worker', import.meta.url)) {}

  /** Starts a thread ahead of the first upload, so that it does not wait for one to start. */
  warm(): void {
    if (this.idle.length === 0) this.idle.push(this.started());
  }

  async run(job: IngestJob, source: AsyncIterable<Buffer>, db: LoadingDb): Promise<IngestResult> {
    const worker = this.idle.pop() ?? this.started();
    worker.ref();
    ingestThreadsBusy.inc();
    let alive = true;
    try {
      return await new JobOnThread(worker, job, source, db).done;
    } catch (error) {
      alive = !(error instanceof ThreadLost);
      throw error;
    } finally {
      ingestThreadsBusy.dec();
      worker.unref();
      if (alive && this.idle.length < keepIdle) this.idle.push(worker);
      else void worker.terminate();
    }
  }

  private started(): Worker {
    const worker = this.startThreadRunning();
    worker.unref();
    // An error ends the thread: a job on it fails (JobOnThread), an idle one is forgotten.
    worker.on('error', () => undefined);
    worker.on('exit', () => {
      const at = this.idle.indexOf(worker);
      if (at !== -1) this.idle.splice(at, 1);
    });
    return worker;
  }
}

export const ingestThreads = new IngestThreads();
