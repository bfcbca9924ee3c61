import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { ColumnType } from './column-types.js';
import { badFile } from './file-problems.js';

export const exportFormats = ['csv', 'json', 'xlsx'] as const;
export type ExportFormat = (typeof exportFormats)[number];

export const contentTypeOf: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  json: 'application/json; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

export interface ExportColumn {
  name: string;
  type: ColumnType;
}

export type ExportRow = Record<string, unknown>;

export interface FileWriter {
  /** Appends a batch of rows, waiting while the disk catches up. */
  write(rows: ExportRow[]): Promise<void>;
  /** Finishes the file and returns its size in bytes. */
  close(): Promise<number>;
}

/** Excel and LibreOffice run a cell that starts with one of these as a formula. */
const formulaStart = /^[=+\-@\t\r]/;

const needsQuotes = /[",\n\r]|^\s|\s$/;

/** A CSV cell: text that a spreadsheet would read as a formula gets a leading apostrophe (OWASP). */
export function csvCell(value: unknown, type: ColumnType): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  let text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (type === 'text' && formulaStart.test(text)) text = `'${text}`;
  return needsQuotes.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

async function writeText(stream: WriteStream, text: string): Promise<void> {
  if (!stream.write(text)) await once(stream, 'drain');
}

async function finish(stream: WriteStream, path: string): Promise<number> {
  stream.end();
  await once(stream, 'finish');
  return (await stat(path)).size;
}

function csvWriter(path: string, columns: ExportColumn[]): FileWriter {
  const stream = createWriteStream(path);
  let started = false;
  return {
    async write(rows) {
      const lines = started ? [] : [columns.map((c) => csvCell(c.name, 'text')).join(',')];
      started = true;
      for (const row of rows) lines.push(columns.map((c) => csvCell(row[c.name], c.type)).join(','));
      await writeText(stream, `${lines.join('\r\n')}\r\n`);
    },
    async close() {
      if (!started) await writeText(stream, `${columns.map((c) => csvCell(c.name, 'text')).join(',')}\r\n`);
      return finish(stream, path);
    },
  };
}

function jsonWriter(path: string, columns: ExportColumn[]): FileWriter {
  const stream = createWriteStream(path);
  let separator = '[\n';
  return {
    async write(rows) {
      if (rows.length === 0) return;
      const text = rows.map((row) => JSON.stringify(Object.fromEntries(columns.map((c) => [c.name, row[c.name] ?? null])))).join(',\n');
      await writeText(stream, separator + text);
      separator = ',\n';
    },
    async close() {
      await writeText(stream, separator === '[\n' ? '[]\n' : '\n]\n');
      return finish(stream, path);
    },
  };
}

const excelMaxRows = 1_048_576;

async function xlsxWriter(path: string, columns: ExportColumn[], sheetName: string): Promise<FileWriter> {
  // Loaded by the first Excel export, not at start: exceljs takes about half a second to load.
  const { default: ExcelJS } = await import('exceljs');
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: path, useSharedStrings: false, useStyles: false });
  const sheet = workbook.addWorksheet(sheetName.slice(0, 31).replace(/[[\]*?:/\\]/g, '_') || 'Sheet1');
  sheet.addRow(columns.map((c) => c.name)).commit();
  let written = 1;
  return {
    async write(rows) {
      written += rows.length;
      if (written > excelMaxRows) throw badFile(`An Excel sheet holds at most ${excelMaxRows} rows: export this data as CSV or JSON.`);
      for (const row of rows) {
        sheet.addRow(columns.map((c) => (row[c.name] !== null && typeof row[c.name] === 'object' ? JSON.stringify(row[c.name]) : row[c.name]))).commit();
      }
      // Let the zip stream flush what the rows produced before taking the next batch.
      await new Promise((resolve) => setImmediate(resolve));
    },
    async close() {
      sheet.commit();
      await workbook.commit();
      return (await stat(path)).size;
    },
  };
}

export async function openWriter(format: ExportFormat, path: string, columns: ExportColumn[], sheetName: string): Promise<FileWriter> {
  switch (format) {
    case 'csv':
      return csvWriter(path, columns);
    case 'json':
      return jsonWriter(path, columns);
    case 'xlsx':
      return xlsxWriter(path, columns, sheetName);
  }
}
