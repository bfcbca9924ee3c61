import { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { badFile } from './file-problems.js';
import type { TableRecord } from './table-record.js';

const midnight = (date: Date) => date.getUTCHours() === 0 && date.getUTCMinutes() === 0 && date.getUTCSeconds() === 0 && date.getUTCMilliseconds() === 0;

/** A cell as text: numbers as written, dates ISO (a date alone when it has no time), formulas by their result. */
export function cellText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return midnight(value) ? value.toISOString().slice(0, 10) : value.toISOString();
  if (typeof value !== 'object') return String(value);
  if ('result' in value) return cellText((value.result ?? null) as ExcelJS.CellValue);
  if ('richText' in value) return value.richText.map((run) => run.text).join('');
  if ('text' in value) return cellText(value.text as ExcelJS.CellValue);
  return '';
}

const batchRows = 1000;

interface SheetReader extends AsyncIterable<ExcelJS.Row> {
  name: string;
}

/**
 * The rows of one worksheet of an .xlsx workbook, streamed by exceljs: the first sheet, or the
 * one named `sheet`. Wholly empty rows are skipped (they are absent from the file).
 */
export async function* readXlsxRecords(source: AsyncIterable<Buffer>, sheet?: string): AsyncGenerator<TableRecord[]> {
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from(source), {
    worksheets: 'emit',
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
    entries: 'ignore',
  });
  // exceljs reads sheet names from xl/workbook.xml and fails when a zip stores a sheet before it
  // (exceljs's own writer sometimes does): an empty model lets such a sheet through under its
  // file name ("Sheet2") instead of failing the whole file.
  (reader as unknown as { model: { sheets: unknown[] } }).model = { sheets: [] };
  let found = false;
  try {
    for await (const worksheet of reader as unknown as AsyncIterable<SheetReader>) {
      if (found || (sheet !== undefined && worksheet.name !== sheet)) {
        // Read to the end even when unwanted: exceljs deletes a sheet it spooled to a temporary
        // file as soon as we move on, and a read still opening that file would crash the process.
        for await (const _row of worksheet);
        continue;
      }
      found = true;
      let batch: TableRecord[] = [];
      for await (const row of worksheet) {
        const cells = row.values as ExcelJS.CellValue[];
        const values: string[] = [];
        for (let column = 1; column < cells.length; column += 1) values.push(cellText(cells[column]));
        batch.push({ values, rowNumber: row.number });
        if (batch.length === batchRows) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length > 0) yield batch;
    }
  } catch (error) {
    if (error instanceof Error && error.name === 'ApiError') throw error;
    throw badFile('The file is not a readable Excel workbook (.xlsx).');
  }
  if (!found) throw badFile(sheet === undefined ? 'The workbook has no worksheet.' : `The workbook has no sheet named "${sheet}".`);
}
