import { readlinkSync } from 'node:fs';
import os from 'node:os';
import { type MessagePort, parentPort } from 'node:worker_threads';
import type { LoadingDb } from '../db/connect.js';
import { ApiError } from '../platform/errors.js';
import { readCsvRecords } from './csv-reader.js';
import { type RowsLoad, ingest } from './ingest.js';
import type { IngestJob, MainMessage, StatementRequest, ThreadError, ThreadMessage } from './ingest-messages.js';
import { readXlsxRecords } from './xlsx-reader.js';

/** An error the main thread raised (reading the upload, a statement): only its number crosses back, and the main thread rethrows its own. */
class MainThreadError extends Error {
  constructor(
    message: string,
    readonly mainError: number,
    readonly code?: string,
  ) {
    super(message);
  }
}

type Arrival = Extract<MainMessage, { op: 'bytes' | 'end' | 'sourceFailed' }>;

/** One job's link to the main thread: the upload's bytes, and a database whose statements the main thread runs. */
class MainThreadLink {
  private readonly pending = new Map<number, { resolve: (rows: unknown[]) => void; reject: (error: Error) => void }>();
  private nextId = 1;
  private readonly arrivals: Arrival[] = [];
  private wake?: () => void;

  readonly db: LoadingDb = {
    query: async <Row>(sql: string, params?: readonly unknown[]) => (await this.ask({ op: 'query', sql, params })) as Row[],
    exec: async (sql) => {
      await this.ask({ op: 'exec', sql });
    },
    copyRows: async (target, rows, options) => {
      await this.ask({ op: 'copy', target, rows, options });
    },
  };

  constructor(private readonly port: MessagePort) {
    port.on('message', (message: MainMessage) => this.receive(message));
  }

  send(message: ThreadMessage): void {
    this.port.postMessage(message);
  }

  async *bytes(): AsyncGenerator<Buffer> {
    this.send({ op: 'read' });
    for (;;) {
      while (this.arrivals.length === 0) await new Promise<void>((resolve) => (this.wake = resolve));
      const arrival = this.arrivals.shift()!;
      if (arrival.op === 'end') return;
      if (arrival.op === 'sourceFailed') throw new MainThreadError('reading the upload failed', arrival.mainError);
      // The next chunk is asked for before this one is read, so that it travels meanwhile.
      this.send({ op: 'read' });
      yield Buffer.from(arrival.chunk.buffer, arrival.chunk.byteOffset, arrival.chunk.byteLength);
    }
  }

  private ask(request: StatementRequest): Promise<unknown[]> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.port.postMessage({ ...request, id } satisfies ThreadMessage);
    });
  }

  private receive(message: MainMessage): void {
    if (message.op === 'answer' || message.op === 'refused') {
      const asked = this.pending.get(message.id)!;
      this.pending.delete(message.id);
      if (message.op === 'answer') asked.resolve(message.rows);
      else asked.reject(new MainThreadError(message.message, message.mainError, message.code));
      return;
    }
    this.arrivals.push(message);
    this.wake?.();
  }
}

function threadError(error: unknown): ThreadError {
  if (error instanceof MainThreadError) return { message: error.message, mainError: error.mainError };
  if (error instanceof ApiError) return { message: error.message, api: { code: error.code, details: error.details } };
  return error instanceof Error ? { message: error.message, stack: error.stack } : { message: String(error) };
}

async function run(job: IngestJob, link: MainThreadLink): Promise<void> {
  const bytes = link.bytes();
  const records = job.kind === 'xlsx' ? readXlsxRecords(bytes, { sheet: job.sheet, spoolDir: job.spoolDir }) : readCsvRecords(bytes);
  // Told once, at the job's end: a message for each batch cost the thread about a tenth as much as checking the values.
  const loaded = new Map<RowsLoad, number>();
  const tellLoaded = () => loaded.forEach((rows, load) => link.send({ op: 'loaded', load, rows }));
  try {
    const result = await ingest(
      { kind: job.kind, records, pinnedTypes: job.pinnedTypes },
      { db: link.db, schema: job.schema, table: job.table, countLoaded: (load, rows) => loaded.set(load, (loaded.get(load) ?? 0) + rows) },
    );
    tellLoaded();
    link.send({ op: 'done', result });
  } catch (error) {
    tellLoaded();
    link.send({ op: 'failed', error: threadError(error) });
  }
}

/** How far below the server's other threads an ingest thread runs (nice on Linux, at most 19). */
const niceBelowServer = 10;

/**
 * Lowers this thread's priority, so that when an upload and requests want the same core the
 * requests go first. On Linux a thread has a nice value of its own, set through its thread id;
 * elsewhere (no /proc/thread-self) the thread keeps the process's.
 */
function yieldToRequests(): void {
  let threadId: number;
  try {
    threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return;
  }
  os.setPriority(threadId, Math.min(19, os.getPriority(threadId) + niceBelowServer));
}

/**
 * An ingest thread (ingest-thread.ts): it reads uploaded files and loads them, one job at a time,
 * so that parsing a file and checking its values never hold the server's event loop. Each job
 * comes with a port of its own, on which the main thread hands over the file's bytes and runs
 * the job's statements.
 */
yieldToRequests();
parentPort!.on('message', ({ job, port }: { job: IngestJob; port: MessagePort }) => void run(job, new MainThreadLink(port)));
