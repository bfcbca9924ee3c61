import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { type EmbeddedError, type EmbeddedReply, type EmbeddedTask, type EmbeddedWorkerData, runningSlotCount, runningSlots } from './embedded-messages.js';
import { startThread } from '../platform/threads.js';
import { DatabaseUnavailable } from './unavailable.js';
import { idle } from './wire-protocol.js';

/** A statement of the embedded database ran past its time limit: its thread was stopped and the database is being reopened. */
export class StatementStopped extends DatabaseUnavailable {
  constructor(readonly limitMs: number) {
    super(new Error(`a statement ran longer than ${limitMs} ms and was stopped; the embedded database is being reopened`));
    this.name = 'StatementStopped';
  }
}

const pgliteFiles = new URL('.', pathToFileURL(createRequire(import.meta.url).resolve('@electric-sql/pglite')));
let compiled: Promise<EmbeddedWorkerData['modules']> | undefined;

/** PGlite's two WebAssembly modules, compiled on first use and shared by every thread this process starts. */
export function pgliteModules(): Promise<EmbeddedWorkerData['modules']> {
  const compile = async (file: string) => WebAssembly.compile(await readFile(new URL(file, pgliteFiles)));
  compiled ??= Promise.all([compile('pglite.wasm'), compile('initdb.wasm')]).then(([pglite, initdb]) => ({ pglite, initdb }));
  return compiled;
}

/** An error of PostgreSQL inside PGlite, with its fields (`code`, `detail`, `constraint`, …) as pg gives them. */
function databaseError({ message, fields }: EmbeddedError): Error {
  return Object.assign(new Error(message), fields);
}

interface PendingTask {
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
}

export type TaskWithoutId = EmbeddedTask extends infer Task ? (Task extends EmbeddedTask ? Omit<Task, 'id'> : never) : never;

/** How often the running statement is compared with its limit: the limit's precision. */
const checkEveryMs = 100;

/**
 * One worker thread running PGlite (embedded-worker.ts), for its lifetime. pg connections reach it
 * as sessions of wire-protocol bytes; the thread's own tasks (COPY, LISTEN) as requests. It writes
 * what it runs, since when and under which limit into shared memory; a timer here reads it, and
 * a statement past its limit is reported to `onOverrun` (the owner stops this thread and opens
 * another). Nothing is timed per statement on this side.
 */
export class EmbeddedThread {
  /** PGlite's answer to a client's startup packet, once open. */
  readonly ready: Promise<Buffer>;
  private readonly worker: Worker;
  private readonly running = new Float64Array(new SharedArrayBuffer(runningSlotCount * Float64Array.BYTES_PER_ELEMENT));
  /** Sessions that sent messages PGlite has not answered to the end: the thread keeps the process alive for them. */
  private readonly awaiting = new Set<number>();
  /** Sessions whose last answer left a transaction open. */
  private readonly inTransaction = new Set<number>();
  private readonly tasks = new Map<number, PendingTask>();
  private nextTaskId = 1;
  private readonly checker: NodeJS.Timeout;
  private stoppedBy: DatabaseUnavailable | undefined;

  constructor(
    options: Omit<EmbeddedWorkerData, 'running'>,
    private readonly events: {
      onAnswer: (session: number, bytes: Buffer) => void;
      onNotify: (channel: string, payload: string) => void;
      onOverrun: (limitMs: number) => void;
      /** The thread ended without being asked to (PGlite aborted, out of memory). */
      onLost: (error: DatabaseUnavailable) => void;
    },
  ) {
    this.worker = startThread('./embedded-worker', import.meta.url, { workerData: { ...options, running: this.running.buffer } });
    this.checker = setInterval(() => this.checkRunning(), checkEveryMs).unref();
    this.ready = new Promise<Buffer>((resolve, reject) => {
      this.worker.on('message', (reply: EmbeddedReply) => {
        if (reply.kind === 'ready') resolve(Buffer.from(reply.greeting.buffer, reply.greeting.byteOffset, reply.greeting.byteLength));
        else if (reply.kind === 'failedToOpen') reject(new DatabaseUnavailable(databaseError(reply.error)));
        else this.answer(reply);
      });
      const lost = (cause: unknown) => {
        const error = new DatabaseUnavailable(cause);
        reject(error);
        if (this.stoppedBy) return;
        this.events.onLost(error);
      };
      this.worker.on('error', lost);
      this.worker.on('exit', (code) => lost(new Error(`the embedded database's thread ended (exit code ${code})`)));
    });
    // Opening keeps the process alive, as a statement does; an idle thread does not.
    this.ready.then(() => this.refWhileAwaited(), () => undefined);
  }

  write(session: number, chunk: Uint8Array): void {
    if (this.stoppedBy) return;
    // A copy of exactly these bytes, whose memory moves to the thread (pg's buffers share theirs).
    const bytes = new Uint8Array(chunk);
    this.worker.postMessage({ op: 'data', session, bytes }, [bytes.buffer]);
    const wasIdle = this.awaiting.size === 0;
    this.awaiting.add(session);
    if (wasIdle) this.refWhileAwaited();
  }

  detach(session: number): void {
    if (this.stoppedBy) return;
    this.awaiting.delete(session);
    this.inTransaction.delete(session);
    this.worker.postMessage({ op: 'disconnect', session });
    this.refWhileAwaited();
  }

  /** Runs one of the thread's own tasks in its turn: its answer (rows as text, nothing) or its error. */
  task(task: TaskWithoutId): Promise<unknown> {
    if (this.stoppedBy) return Promise.reject(this.stoppedBy);
    const id = this.nextTaskId++;
    const answered = new Promise<unknown>((resolve, reject) => this.tasks.set(id, { resolve, reject }));
    this.worker.postMessage({ ...task, id });
    this.refWhileAwaited();
    return answered;
  }

  /**
   * Ends the thread at once, whatever it runs. Tasks fail, what was running with `runningReason`
   * and the rest with `reason`. `lost` is the sessions that lost work with the thread (a statement
   * sent or a transaction open) and why; the others may go on with the next thread once `ended`.
   */
  stop(reason: DatabaseUnavailable, runningReason: DatabaseUnavailable = reason): { lost: Map<number, DatabaseUnavailable>; ended: Promise<unknown> } {
    const lost = new Map<number, DatabaseUnavailable>();
    if (this.stoppedBy) return { lost, ended: Promise.resolve() };
    this.stoppedBy = reason;
    clearInterval(this.checker);
    const runningSession = this.running[runningSlots.startedAt] === 0 ? undefined : this.running[runningSlots.session];
    for (const session of [...this.awaiting, ...this.inTransaction]) lost.set(session, session === runningSession ? runningReason : reason);
    const [runningTask] = runningSession === 0 ? this.tasks.values() : [];
    for (const task of this.tasks.values()) task.reject(task === runningTask ? runningReason : reason);
    this.tasks.clear();
    this.awaiting.clear();
    this.inTransaction.clear();
    return { lost, ended: this.worker.terminate() };
  }

  private answer(reply: EmbeddedReply): void {
    switch (reply.kind) {
      case 'data':
        if (reply.status !== undefined) {
          if (reply.status === idle) this.inTransaction.delete(reply.session);
          else this.inTransaction.add(reply.session);
          if (this.awaiting.delete(reply.session) && this.awaiting.size === 0) this.refWhileAwaited();
        }
        this.events.onAnswer(reply.session, Buffer.from(reply.bytes.buffer, reply.bytes.byteOffset, reply.bytes.byteLength));
        return;
      case 'notify':
        this.events.onNotify(reply.channel, reply.payload);
        return;
      case 'done':
      case 'failed': {
        const task = this.tasks.get(reply.id);
        if (!task) return;
        this.tasks.delete(reply.id);
        if (reply.kind === 'done') task.resolve(reply.result);
        else task.reject(databaseError(reply.error));
        this.refWhileAwaited();
        return;
      }
      default:
    }
  }

  private checkRunning(): void {
    const startedAt = this.running[runningSlots.startedAt];
    const limitMs = this.running[runningSlots.limitMs];
    if (startedAt !== 0 && Date.now() - startedAt > limitMs && !this.stoppedBy) this.events.onOverrun(limitMs);
  }

  /** The thread and its timer keep the process alive only while something waits for an answer. */
  private refWhileAwaited(): void {
    if (this.stoppedBy) return;
    if (this.awaiting.size > 0 || this.tasks.size > 0) {
      this.worker.ref();
      this.checker.ref();
    } else {
      this.worker.unref();
      this.checker.unref();
    }
  }
}
