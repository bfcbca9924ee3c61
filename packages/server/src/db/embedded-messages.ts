/** What the main thread asks the embedded database's worker thread (embedded-worker.ts) to do. */
export type EmbeddedRequest =
  | { id: number; op: 'query'; sql: string; params: readonly unknown[] }
  | { id: number; op: 'exec'; sql: string }
  /** COPY … FROM '/dev/blob' with `rows` in COPY text format as the blob. */
  | { id: number; op: 'copyFrom'; sql: string; rows: string }
  /** COPY … TO '/dev/blob': the blob's text comes back. */
  | { id: number; op: 'copyTo'; sql: string }
  | { id: number; op: 'listen' | 'unlisten'; channel: string }
  | { id: number; op: 'close' };

/** A PostgreSQL error as its fields (the structured clone keeps an Error's message but not its `code`). */
export interface EmbeddedError {
  message: string;
  fields: Record<string, string | number | undefined>;
}

export type EmbeddedReply =
  | { kind: 'ready' }
  | { kind: 'failedToOpen'; error: EmbeddedError }
  | { kind: 'done'; id: number; result: unknown }
  | { kind: 'failed'; id: number; error: EmbeddedError }
  | { kind: 'notify'; channel: string; payload: string };

export interface EmbeddedWorkerData {
  /** PGlite's files; undefined keeps the database in the worker's memory. */
  directory: string | undefined;
}
