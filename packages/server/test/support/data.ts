import { Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import type { TestApp, TestOrg } from './app.js';

export interface DatasetColumn {
  name: string;
  originalName: string;
  type: string;
}

export interface Dataset {
  id: string;
  projectId: string;
  name: string;
  tableName: string;
  status: 'importing' | 'ready' | 'failed';
  source: string;
  connectionId: string | null;
  rowCount: number;
  columns: DatasetColumn[];
  sizeBytes: number;
  error: string | null;
  createdAt: string;
}

export interface ErrorBody {
  error: string;
  code: string;
  details?: { field: string; message: string }[];
}

export async function createProject(t: TestApp, org: TestOrg, name = 'Data'): Promise<string> {
  const created = await t.request<{ data: { id: string } }>('POST', 'projects', { apiKey: org.apiKey, body: { name } });
  return created.body.data.id;
}

export interface UploadOptions {
  contentType?: string;
  /** Sends multipart/form-data with the file in field "file" under this name. */
  fileName?: string;
  query?: Record<string, string>;
  field?: string;
  /** Multipart text fields, sent before the file. */
  fields?: Record<string, string>;
}

/** The file in chunks of `size` bytes, as a network would hand it over. */
export async function* inChunks(text: string, size: number): AsyncGenerator<Buffer> {
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

/** POST /projects/{id}/datasets with a raw body, or multipart when a file name is given. */
export async function upload<T = { data: Dataset }>(t: TestApp, apiKey: string, projectId: string, file: string | Buffer, options: UploadOptions = {}) {
  const query = options.query ? `?${new URLSearchParams(options.query).toString()}` : '';
  const url = `${t.baseUrl}/api/v1/projects/${projectId}/datasets${query}`;
  const bytes = typeof file === 'string' ? Buffer.from(file, 'utf8') : file;
  let body: BodyInit;
  const headers: Record<string, string> = { authorization: `Bearer ${apiKey}` };
  if (options.fileName) {
    const form = new FormData();
    for (const [name, value] of Object.entries(options.fields ?? {})) form.append(name, value);
    form.append(options.field ?? 'file', new Blob([new Uint8Array(bytes)], { type: options.contentType ?? 'text/csv' }), options.fileName);
    body = form;
  } else {
    body = new Uint8Array(bytes);
    headers['content-type'] = options.contentType ?? 'text/csv';
  }
  const response = await fetch(url, { method: 'POST', headers, body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : undefined) as T };
}

/** The tables that exist in a project's data schema. */
export async function tablesOf(t: TestApp, projectId: string): Promise<string[]> {
  const schema = `data_${projectId.slice('proj_'.length)}`;
  const rows = await t.database.db.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name`,
    [schema],
  );
  return rows.map((row) => row.table_name);
}

/**
 * Project data schemas live outside the suite's own schema on PostgreSQL: drop those of the
 * suite's projects so a run leaves nothing behind.
 */
export async function dropProjectSchemas(t: TestApp): Promise<void> {
  const projects = await t.database.db.query<{ id: string }>('SELECT id FROM projects');
  for (const { id } of projects) await t.database.db.exec(`DROP SCHEMA IF EXISTS data_${id.slice('proj_'.length)} CASCADE`);
}

/** A workbook made by exceljs's streaming writer (inline strings, the parts in a fixed order). */
export async function xlsxFile(sheets: Record<string, unknown[][]>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream });
  for (const [name, rows] of Object.entries(sheets)) {
    const sheet = workbook.addWorksheet(name);
    for (const row of rows) sheet.addRow(row).commit();
    sheet.commit();
  }
  await workbook.commit();
  return Buffer.concat(chunks);
}

/** Polls until `check` returns a value, for work the worker does in the background. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
