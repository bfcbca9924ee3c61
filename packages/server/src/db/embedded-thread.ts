import { Worker } from 'node:worker_threads';
import type { EmbeddedError, EmbeddedReply, EmbeddedRequest, EmbeddedWorkerData } from './embedded-messages.js';
import { DatabaseUnavailable } from './unavailable.js';

/** A statement of the embedded database ran past its time limit: its thread was stopped and the database is being reopened. */
export class StatementStopped extends DatabaseUnavailable {
  constructor(readonly limitMs: number) {
    super(new Error(`a statement ran longer than ${limitMs} ms and was stopped; the embedded database is being reopened`));
    this.name = 'StatementStopped';
  }
}

/** From the TypeScript sources (run through tsx) the worker starts by registering tsx's loader, which it does not inherit. */
const workerFile = new URL(import.meta.url.endsWith('.ts') ? './embedded-worker-tsx.mjs' : './embedded-worker.js', import.meta.url);

/** An error of PostgreSQL inside PGlite, with its fields (`code`, `detail`, `constraint`, …) as pg gives them. */
function databaseError({ message, fields }: EmbeddedError): Error {
  return Object.assign(new Error(message), fields);
}

interface Pending {
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
  limitMs: number;
}

export type RequestWithoutId = EmbeddedRequest extends infer Request ? (Request extends EmbeddedRequest ? Omit<Request, 'id'> : never) : never;

/**
 * One worker thread running PGlite, for its lifetime. Requests are answered in the order sent, so
 * the oldest unanswered one is the statement running now: only it is timed, and when it runs past
 * its limit, `onOverrun` is told (the owner stops this thread and opens another).
 */
export class EmbeddedThread {
  readonly ready: Promise<void>;
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private timer: NodeJS.Timeout | undefined;
  private stoppedBy: DatabaseUnavailable | undefined;

  constructor(
    directory: string | undefined,
    private readonly events: {
      onNotify: (channel: string, payload: string) => void;
      onOverrun: (limitMs: number) => void;
      /** The thread ended without being asked to (PGlite aborted, out of memory). */
      onLost: (error: DatabaseUnavailable) => void;
    },
  ) {
    const workerData: EmbeddedWorkerData = { directory };
    this.worker = new Worker(workerFile, { workerData });
    this.ready = new Promise<void>((resolve, reject) => {
      this.worker.on('message', (reply: EmbeddedReply) => {
        if (reply.kind === 'ready') resolve();
        else if (reply.kind === 'failedToOpen') reject(new DatabaseUnavailable(databaseError(reply.error)));
        else this.answer(reply);
      });
      const lost = (cause: unknown) => {
        const error = new DatabaseUnavailable(cause);
        reject(error);
        if (this.stoppedBy) return;
        this.fail(error);
        this.events.onLost(error);
      };
      this.worker.on('error', lost);
      this.worker.on('exit', (code) => lost(new Error(`the embedded database's thread ended (exit code ${code})`)));
    });
    // Opening keeps the process alive, as a statement does (timeHead); an idle thread does not.
    this.ready.then(() => this.timeHead(), () => undefined);
  }

  get stopped(): boolean {
    return this.stoppedBy !== undefined;
  }

  /** Sends `request`; its answer (rows, text, nothing) or its error. */
  send(request: RequestWithoutId, limitMs: number): Promise<unknown> {
    if (this.stoppedBy) return Promise.reject(this.stoppedBy);
    const id = this.nextId++;
    const answered = new Promise<unknown>((resolve, reject) => this.pending.set(id, { resolve, reject, limitMs }));
    this.worker.postMessage({ ...request, id });
    if (this.pending.size === 1) this.timeHead();
    return answered;
  }

  /** Ends the thread at once, whatever it runs; every unanswered request fails with `reason`, the running one with `headReason`. */
  async stop(reason: DatabaseUnavailable, headReason: DatabaseUnavailable = reason): Promise<void> {
    if (this.stoppedBy) return;
    this.stoppedBy = reason;
    const [head] = this.pending.values();
    head?.reject(headReason);
    this.fail(reason);
    await this.worker.terminate();
  }

  private fail(error: Error): void {
    clearTimeout(this.timer);
    for (const { reject } of this.pending.values()) reject(error);
    this.pending.clear();
    this.worker.unref();
  }

  private answer(reply: EmbeddedReply): void {
    if (reply.kind === 'notify') {
      this.events.onNotify(reply.channel, reply.payload);
      return;
    }
    if (reply.kind !== 'done' && reply.kind !== 'failed') return;
    const pending = this.pending.get(reply.id);
    if (!pending) return;
    this.pending.delete(reply.id);
    if (reply.kind === 'done') pending.resolve(reply.result);
    else pending.reject(databaseError(reply.error));
    this.timeHead();
  }

  /** Times the statement running now; the thread keeps the process alive only while one is. */
  private timeHead(): void {
    clearTimeout(this.timer);
    const [head] = this.pending.values();
    if (!head) {
      this.worker.unref();
      return;
    }
    this.worker.ref();
    this.timer = setTimeout(() => this.events.onOverrun(head.limitMs), head.limitMs);
  }
}
