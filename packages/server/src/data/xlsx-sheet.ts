import { maxRecordChars } from './csv-reader.js';
import { badFile } from './file-problems.js';
import type { TableRecord } from './table-record.js';
import { RunText } from './xlsx-workbook-parts.js';
import { type XmlAttributes, attribute, parseXml } from './xml-part.js';

export interface SheetContext {
  sharedStrings: string[];
  dateStyles: boolean[];
  date1904: boolean;
}

/** Excel's last column is XFD: a cell past it is no spreadsheet's. */
const maxColumn = 16_384;
const batchRows = 1000;
const dayMs = 24 * 60 * 60 * 1000;
/** Day 0 of Excel's 1900 calendar is 1899-12-30 (its phantom 1900-02-29 included), 25,569 days before 1970; 1904 dates count 1,462 days later. */
const unixEpochDay = 25_569;
const days1904 = 1_462;

/** The column of a reference like "AB12" (28); 0 when it has no letters. */
function columnNumber(reference: string): number {
  let column = 0;
  for (const letter of /^[A-Z]*/i.exec(reference)![0].toUpperCase()) {
    column = column * 26 + letter.charCodeAt(0) - 64;
    if (column > maxColumn) break;
  }
  return column;
}

/** A date alone when it falls on midnight, else an instant. */
function dateText(serial: number, date1904: boolean): string {
  const date = new Date(Math.round((serial - unixEpochDay + (date1904 ? days1904 : 0)) * dayMs));
  if (Number.isNaN(date.getTime())) return '';
  const iso = date.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
}

interface Cell {
  column: number;
  type: string;
  style: number;
  value: string;
  inline?: RunText;
  inValue: boolean;
}

/** A cell as text: numbers as written, dates ISO, booleans true/false, formulas by their last computed result, errors empty. */
function cellText(cell: Cell, context: SheetContext): string {
  switch (cell.type) {
    case 's':
      return cell.value === '' ? '' : (context.sharedStrings[Number(cell.value)] ?? '');
    case 'inlineStr':
      return cell.inline?.text ?? cell.value;
    case 'str':
    case 'd':
      return cell.value;
    case 'b':
      return cell.value === '' ? '' : String(Number(cell.value) !== 0);
    case 'e':
      return '';
    default: {
      const number = Number.parseFloat(cell.value);
      if (Number.isNaN(number)) return '';
      return context.dateStyles[cell.style] ? dateText(number, context.date1904) : String(number);
    }
  }
}

/**
 * The rows of one worksheet part as it streams in, wholly empty rows skipped. Only the row being
 * read is held, and it may hold at most as much text as a CSV record (maxRecordChars).
 */
export async function* readSheetRecords(part: AsyncIterable<string>, context: SheetContext): AsyncGenerator<TableRecord[]> {
  let batch: TableRecord[] = [];
  let rowNumber = 0;
  let values: string[] | undefined;
  let rowChars = 0;
  let cell: Cell | undefined;
  const addText = (text: string) => {
    if (!cell) return;
    if (cell.inValue) cell.value += text;
    else cell.inline?.add(text);
    rowChars += text.length;
    if (rowChars > maxRecordChars) throw badFile(`Row ${rowNumber} holds more than ${maxRecordChars / 1024 / 1024} MiB of text; a row may hold at most that.`);
  };
  const openCell = (attributes: XmlAttributes) => {
    const column = columnNumber(attribute(attributes, 'r') ?? '') || values!.length + 1;
    if (column > maxColumn) throw badFile(`Row ${rowNumber} has a cell past column XFD, the last one Excel has.`);
    cell = { column, type: attribute(attributes, 't') ?? 'n', style: Number(attribute(attributes, 's') ?? 0), value: '', inValue: false };
  };
  const closeCell = () => {
    const text = cellText(cell!, context);
    if (text !== '') {
      while (values!.length < cell!.column - 1) values!.push('');
      values![cell!.column - 1] = text;
    }
    cell = undefined;
  };
  const parsing = parseXml(part, {
    open(name, attributes) {
      if (name === 'row') {
        rowNumber = Number(attribute(attributes, 'r')) || rowNumber + 1;
        values = [];
        rowChars = 0;
      } else if (name === 'c' && values) openCell(attributes);
      else if (!cell) return;
      else if (name === 'v') cell.inValue = true;
      else if (name === 'is') cell.inline = new RunText();
      else cell.inline?.open(name);
    },
    text: addText,
    close(name) {
      if (name === 'row' && values) {
        if (values.length > 0) batch.push({ values, rowNumber });
        values = undefined;
      } else if (!cell) return;
      else if (name === 'c') closeCell();
      else if (name === 'v') cell.inValue = false;
      else cell.inline?.close(name);
    },
  });
  for await (const _chunk of parsing) {
    if (batch.length < batchRows) continue;
    yield batch;
    batch = [];
  }
  if (batch.length > 0) yield batch;
}
