import { type ColumnType, storedValue } from './column-types.js';
import type { CsvText } from './table-record.js';

/** Occurrences of `part` in `text`. */
export function occurrences(text: string, part: string): number {
  let found = 0;
  for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + part.length)) found += 1;
  return found;
}

/** Whether every line break of `text` is a `newline` (the file's, the one the parser splits records at). */
function onlyLineBreaksOf(text: string, newline: string): boolean {
  if (newline === '\n') return !text.includes('\r');
  if (newline !== '\r\n') return false;
  const lines = occurrences(text, '\r\n');
  return occurrences(text, '\r') === lines && occurrences(text, '\n') === lines;
}

const quote = 34;

/**
 * How a batch of CSV text is loaded: as it came, `number` lines of one record each; `rewrite`:
 * this batch is rewritten value by value; `rewriteFromHere`: this batch and the rest of the file
 * (a value is stored otherwise than written, a time without a zone or `TRUE`: a file keeps its ways).
 */
export type TextVerdict = number | 'rewrite' | 'rewriteFromHere';

/**
 * Whether PostgreSQL's `COPY … (FORMAT csv)` reads `csv.text` into the very fields papaparse
 * reads from it, each line one record of `types.length` fields, and every value of a column
 * with a type is empty or stored as written; then the text can be loaded as it came. Both follow
 * RFC 4180; they part only off it, and those texts are rewritten: a quote inside an unquoted
 * field or text after a closing quote (papaparse keeps them as text, PostgreSQL reads a quoted
 * part), a line break other than the file's (papaparse keeps it, PostgreSQL fails), a NUL
 * character (PostgreSQL refuses it) and `\.` (PostgreSQL's end of data when alone on a line).
 * Blank lines and records over several lines are left to the rewriting too, so that numbering a
 * line is prefixing it. The text must start at a record's start.
 * Hand-written, and the reason an upload is fast: the fields are found with native searches and
 * only the typed ones are cut out, each checked and dropped at once. Parsing every batch into
 * arrays of strings held until it was checked made papaparse and the collections of the strings
 * that outlived it most of an upload's time (BENCHMARKS.md, 2026-12-02 evening).
 */
export function linesAsStored(csv: CsvText, types: readonly ColumnType[]): TextVerdict {
  const { text, delimiter, newline } = csv;
  if (text.includes('\0') || text.includes('\\.') || !onlyLineBreaksOf(text, newline)) return 'rewrite';
  let lines = 0;
  let nextQuote = text.indexOf('"');
  for (let start = 0; start < text.length; start += newline.length) {
    let end = text.indexOf(newline, start);
    if (end === -1) end = text.length;
    if (end === start) return 'rewrite';
    let column = 0;
    for (let at = start; ; at += delimiter.length) {
      if (column === types.length) return 'rewrite';
      let fieldEnd: number;
      let value = '';
      if (at === nextQuote) {
        let close = text.indexOf('"', at + 1);
        while (close !== -1 && text.charCodeAt(close + 1) === quote) close = text.indexOf('"', close + 2);
        fieldEnd = close + 1;
        if (close === -1 || close >= end || (fieldEnd !== end && !text.startsWith(delimiter, fieldEnd))) return 'rewrite';
        nextQuote = text.indexOf('"', fieldEnd);
        if (types[column] !== 'text') value = text.slice(at + 1, close).replaceAll('""', '"');
      } else {
        fieldEnd = text.indexOf(delimiter, at);
        if (fieldEnd === -1 || fieldEnd > end) fieldEnd = end;
        if (nextQuote !== -1 && nextQuote < fieldEnd) return 'rewrite';
        if (types[column] !== 'text') value = text.slice(at, fieldEnd);
      }
      if (value !== '') {
        const stored = storedValue(value, types[column]);
        if (stored !== value) return stored === undefined ? 'rewrite' : 'rewriteFromHere';
      }
      column += 1;
      if (fieldEnd === end) break;
      at = fieldEnd;
    }
    if (column !== types.length) return 'rewrite';
    lines += 1;
    start = end;
  }
  return lines;
}

/**
 * The text after its first line when that line is a whole record of `width` fields (a header
 * read by papaparse): then the rest starts at a record's start. Undefined when the header goes
 * on over more lines or is read otherwise by COPY.
 */
export function afterHeaderLine(csv: CsvText, width: number): CsvText | undefined {
  const end = csv.text.indexOf(csv.newline);
  const headerLine = end === -1 ? csv.text : csv.text.slice(0, end);
  if (linesAsStored({ ...csv, text: headerLine }, Array<ColumnType>(width).fill('text')) !== 1) return undefined;
  return { ...csv, text: end === -1 ? '' : csv.text.slice(end + csv.newline.length) };
}

/** The lines of `text` (each a record, see `linesAsStored`), each starting with its number and the delimiter, numbered from `first`. */
export function numberedLines(text: string, newline: string, delimiter: string, first: number): string {
  let numbered = '';
  let number = first;
  let start = 0;
  for (let end = text.indexOf(newline); end !== -1; end = text.indexOf(newline, start)) {
    numbered += `${number}${delimiter}${text.slice(start, end)}\n`;
    number += 1;
    start = end + newline.length;
  }
  return start < text.length ? `${numbered}${number}${delimiter}${text.slice(start)}\n` : numbered;
}
