import path from 'node:path';
import { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { badFile } from './file-problems.js';
import type { TableRecord } from './table-record.js';
import { spoolUpload } from './upload-spool.js';
import { ZipParts, zipLimits } from './zip-parts.js';

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

const mib = 1024 * 1024;

/** What the workbook's small parts (workbook.xml, its relationships, styles.xml) may inflate to. */
const maxSmallPartBytes = 32 * mib;

/** The shared strings table is held in memory while the sheet is read: it is bounded. */
export const sharedStringsLimits = { maxBytes: 256 * mib, maxCount: 4_000_000 };

/** Excel's last column is XFD: a cell past it is no spreadsheet's (and would make a row that large). */
const maxColumn = 16_384;

const batchRows = 1000;

interface Relationship {
  Id: string;
  Type: string;
  Target: string;
}

/**
 * The steps of exceljs's streaming WorkbookReader that each read one part (its `parse()` reads the
 * zip itself, in file order, and spools a sheet met before the shared strings to a temporary file
 * inflated whole; it is never called here). exceljs 4.4 is its last release: these stay as they are.
 */
interface PartSteps {
  workbookRels?: Relationship[];
  model?: { sheets?: { name: string; rId: string }[] };
  sharedStrings?: string[];
  _parseRels(part: Readable): Promise<void>;
  _parseWorkbook(part: Readable): Promise<void>;
  _parseStyles(part: Readable): Promise<void>;
  _parseSharedStrings(part: Readable): AsyncGenerator<{ index: number; text: ExcelJS.CellValue }>;
  _parseWorksheet(part: Readable, sheetNo: string): Generator<{ value: AsyncIterable<ExcelJS.Row> }>;
}

/** A relationship's target as a zip path: relative to xl/, or absolute from the zip's root. */
const partPath = (target: string) => (target.startsWith('/') ? target.slice(1) : path.posix.join('xl', target));

const relationship = (rels: Relationship[], type: string) => rels.find((rel) => rel.Type.endsWith(`/${type}`));

async function readSharedStrings(steps: PartSteps, part: Readable): Promise<string[]> {
  const strings: string[] = [];
  for await (const { text } of steps._parseSharedStrings(part)) {
    if (strings.length === sharedStringsLimits.maxCount) {
      throw badFile(`The workbook has more than ${sharedStringsLimits.maxCount.toLocaleString('en')} shared strings; at most that many are accepted.`);
    }
    strings.push(cellText(text));
  }
  return strings;
}

function chooseSheet(steps: PartSteps, sheet: string | undefined): string {
  const rels = steps.workbookRels ?? [];
  const worksheets = (steps.model?.sheets ?? []).flatMap(({ name, rId }) => {
    const rel = rels.find((candidate) => candidate.Id === rId && candidate.Type.endsWith('/worksheet'));
    return rel ? [{ name, part: partPath(rel.Target) }] : [];
  });
  const chosen = sheet === undefined ? worksheets[0] : worksheets.find((candidate) => candidate.name === sheet);
  if (!chosen) throw badFile(sheet === undefined ? 'The workbook has no worksheet.' : `The workbook has no sheet named "${sheet}".`);
  return chosen.part;
}

/** The chosen sheet's rows, its parts read in the order that needs no temporary file: relationships, workbook, strings, styles, sheet. */
async function* sheetRows(parts: ZipParts, sheet: string | undefined): AsyncGenerator<ExcelJS.Row> {
  // exceljs's own zip reading (its input) is never used.
  const steps = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from([]), {
    worksheets: 'emit',
    sharedStrings: 'emit',
    styles: 'cache',
    hyperlinks: 'ignore',
    entries: 'ignore',
  }) as unknown as PartSteps;
  const text = async (name: string, maxBytes: number) => (await parts.read(name, maxBytes)).setEncoding('utf8');
  await steps._parseRels(await text('xl/_rels/workbook.xml.rels', maxSmallPartBytes));
  await steps._parseWorkbook(await text('xl/workbook.xml', maxSmallPartBytes));
  const sheetPart = chooseSheet(steps, sheet);
  const rels = steps.workbookRels ?? [];
  const strings = partPath(relationship(rels, 'sharedStrings')?.Target ?? 'sharedStrings.xml');
  steps.sharedStrings = parts.has(strings) ? await readSharedStrings(steps, await text(strings, sharedStringsLimits.maxBytes)) : [];
  const styles = partPath(relationship(rels, 'styles')?.Target ?? 'styles.xml');
  if (parts.has(styles)) await steps._parseStyles(await text(styles, maxSmallPartBytes));
  for (const { value: worksheet } of steps._parseWorksheet(await text(sheetPart, zipLimits.maxTotalBytes), '')) yield* worksheet;
}

/**
 * The rows of one worksheet of an .xlsx workbook: the first sheet, or the one named `sheet`.
 * Wholly empty rows are skipped (they are absent from the file). The upload is spooled to a
 * private file in `spoolDir` (a zip is read from its end), and each part is inflated under the
 * limits of zip-parts.ts as exceljs parses it; nothing else is written to disk.
 */
export async function* readXlsxRecords(source: AsyncIterable<Buffer>, options: { sheet?: string; spoolDir: string }): AsyncGenerator<TableRecord[]> {
  const spool = await spoolUpload(source, options.spoolDir);
  let parts: ZipParts | undefined;
  try {
    parts = await ZipParts.open(spool);
    let batch: TableRecord[] = [];
    for await (const row of sheetRows(parts, options.sheet)) {
      const cells = row.values as ExcelJS.CellValue[];
      if (cells.length - 1 > maxColumn) throw badFile(`Row ${row.number} has a cell past column XFD, the last one Excel has.`);
      const values: string[] = [];
      for (let column = 1; column < cells.length; column += 1) values.push(cellText(cells[column]));
      batch.push({ values, rowNumber: row.number });
      if (batch.length === batchRows) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  } catch (error) {
    if (error instanceof Error && error.name === 'ApiError') throw error;
    throw badFile('The file is not a readable Excel workbook (.xlsx).');
  } finally {
    parts?.close();
    await spool.file.close();
  }
}
