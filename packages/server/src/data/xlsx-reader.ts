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

interface SheetReader extends AsyncIterable<ExcelJS.Row> {
  name: string;
}

/**
 * The rows of one worksheet of an .xlsx workbook, streamed by exceljs: the first sheet, or the
 * one named `sheet`. Wholly empty rows are skipped (they are absent from the file).
 */
export async function* readXlsxRecords(source: AsyncIterable<Buffer>, sheet?: string): AsyncGenerator<TableRecord> {
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from(source), {
    worksheets: 'emit',
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
    entries: 'ignore',
  });
  let found = false;
  try {
    for await (const worksheet of reader as unknown as AsyncIterable<SheetReader>) {
      if (found || (sheet !== undefined && worksheet.name !== sheet)) continue;
      found = true;
      for await (const row of worksheet) {
        const cells = row.values as ExcelJS.CellValue[];
        const values: string[] = [];
        for (let column = 1; column < cells.length; column += 1) values.push(cellText(cells[column]));
        yield { values, rowNumber: row.number };
      }
    }
  } catch (error) {
    if (error instanceof Error && error.name === 'ApiError') throw error;
    throw badFile('The file is not a readable Excel workbook (.xlsx).');
  }
  if (!found) throw badFile(sheet === undefined ? 'The workbook has no worksheet.' : `The workbook has no sheet named "${sheet}".`);
}
