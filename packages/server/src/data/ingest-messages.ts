import type { ErrorCode, FieldProblem } from '../platform/errors.js';
import type { ColumnType } from './column-types.js';
import type { IngestResult, RowsLoad } from './ingest.js';

/** An uploaded file for an ingest thread (ingest-worker.ts) to read and load into `schema.table`. */
export interface IngestJob {
  kind: 'csv' | 'xlsx';
  /** The .xlsx sheet to read (the first when absent) and where the workbook is spooled. */
  sheet?: string;
  spoolDir: string;
  pinnedTypes?: Record<string, ColumnType>;
  schema: string;
  table: string;
}

/** A statement the thread asks the main thread to run on the database. */
export type StatementRequest =
  | { op: 'query'; sql: string; params?: readonly unknown[] }
  | { op: 'exec'; sql: string }
  | { op: 'copy'; target: string; rows: Uint8Array; options: string };

/** An error the thread ended its job with: an ApiError's parts, or `mainError`, the number of one the main thread raised and kept. */
export interface ThreadError {
  message: string;
  stack?: string;
  api?: { code: ErrorCode; details?: FieldProblem[] };
  mainError?: number;
}

/** What the thread sends on a job's port: requests for the file's bytes and for statements, and the job's end. */
export type ThreadMessage =
  | { op: 'read' }
  | (StatementRequest & { id: number })
  | { op: 'loaded'; load: RowsLoad; rows: number }
  | { op: 'done'; result: IngestResult }
  | { op: 'failed'; error: ThreadError };

/** What the main thread answers: the file's next bytes (or its end, or that reading it failed), a statement's rows or its error. */
export type MainMessage =
  | { op: 'bytes'; chunk: Uint8Array }
  | { op: 'end' }
  | { op: 'sourceFailed'; mainError: number }
  | { op: 'answer'; id: number; rows: unknown[] }
  | { op: 'refused'; id: number; message: string; code?: string; mainError: number };
