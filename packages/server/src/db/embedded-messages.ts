/** What the main thread asks the embedded database's thread (embedded-worker.ts) to do. */
export type EmbeddedRequest =
  /** A pg connection's wire-protocol messages (after its startup, which the main thread answers), or its leaving. */
  | { op: 'data'; session: number; bytes: Uint8Array }
  | { op: 'disconnect'; session: number }
  /** COPY … FROM '/dev/blob' with `rows` in COPY text format as the blob. */
  | { op: 'copyFrom'; id: number; sql: string; rows: string | Uint8Array }
  /** COPY … TO '/dev/blob': the blob's text comes back. */
  | { op: 'copyTo'; id: number; sql: string }
  | { op: 'listen' | 'unlisten'; id: number; channel: string }
  /** The whole database as PGlite's dumpDataDir tarball, which `EmbeddedWorkerData.image` starts from. */
  | { op: 'image'; id: number }
  | { op: 'close'; id: number };

export type EmbeddedTask = Extract<EmbeddedRequest, { id: number }>;

/** A PostgreSQL error as its fields (the structured clone keeps an Error's message but not its `code`). */
export interface EmbeddedError {
  message: string;
  fields: Record<string, string | number | undefined>;
}

export type EmbeddedReply =
  /** Open; `greeting` is PGlite's answer to a client's startup packet, the same for every client. */
  | { kind: 'ready'; greeting: Uint8Array }
  | { kind: 'failedToOpen'; error: EmbeddedError }
  /** PGlite's answer to a connection's messages; `status`, that of its last ReadyForQuery, if it holds one. */
  | { kind: 'data'; session: number; bytes: Uint8Array; status: number | undefined }
  | { kind: 'done'; id: number; result: unknown }
  | { kind: 'failed'; id: number; error: EmbeddedError }
  | { kind: 'notify'; channel: string; payload: string };

/**
 * What the thread is running now, shared with the main thread, which reads it to stop a statement
 * that runs too long without any message crossing per statement: when it started (ms since the
 * epoch, 0 when nothing runs), its limit, and the session it runs for (0 for the thread's own tasks).
 */
export const runningSlots = { startedAt: 0, limitMs: 1, session: 2 } as const;
export const runningSlotCount = 3;

export interface EmbeddedWorkerData {
  /** PGlite's files; undefined keeps the database in the worker's memory. */
  directory: string | undefined;
  /** In memory only: the database starts as this image (the `image` task's) rather than as an empty cluster. */
  image?: Uint8Array<ArrayBuffer>;
  /** PGlite's WebAssembly, compiled once per process: a reopened database does not compile it again. */
  modules: { pglite: WebAssembly.Module; initdb: WebAssembly.Module };
  /** The limit of a statement unless its transaction set a shorter one (SET LOCAL statement_timeout). */
  statementTimeoutMs: number;
  /** A Float64Array's memory, laid out as `runningSlots`. */
  running: SharedArrayBuffer;
}
