import type { CsvText } from './table-record.js';

/** Occurrences of `part` in `text`. */
export function occurrences(text: string, part: string): number {
  let found = 0;
  for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + part.length)) found += 1;
  return found;
}

/** Whether `text` holds exactly `lines` line breaks, each a `newline` (the one the parser split records at). */
function lineBreaks(text: string, newline: string, lines: number): boolean {
  if (newline === '\n') return !text.includes('\r') && occurrences(text, '\n') === lines;
  return newline === '\r\n' && occurrences(text, '\r\n') === lines && occurrences(text, '\r') === lines && occurrences(text, '\n') === lines;
}

const endsField = (text: string, at: number, delimiter: string): boolean =>
  at === text.length || text[at] === delimiter || text[at] === '\r' || text[at] === '\n';

/**
 * Whether every quote of `text` opens a field (at the start of a line or after a delimiter) and
 * is closed right before the end of that field, `""` standing for a quote inside it.
 */
function quotesWholeFields(text: string, delimiter: string): boolean {
  for (let open = text.indexOf('"'); open !== -1; ) {
    if (open > 0 && !endsField(text, open - 1, delimiter)) return false;
    let close = text.indexOf('"', open + 1);
    while (close !== -1 && text.charCodeAt(close + 1) === 34) close = text.indexOf('"', close + 2);
    if (close === -1 || !endsField(text, close + 1, delimiter)) return false;
    open = text.indexOf('"', close + 1);
  }
  return true;
}

/**
 * Whether PostgreSQL's `COPY … (FORMAT csv)` reads `text`, each line numbered by
 * `numberedLines`, into the very fields papaparse read from it as `records` records, one per
 * line; then the text can be loaded as it came instead of rewritten field by field. Both follow
 * RFC 4180; they part only off it, and those texts are refused here: a quote inside an unquoted
 * field or text after a closing quote (papaparse keeps them as text, PostgreSQL reads a quoted
 * part), a line break other than the file's (papaparse keeps it, PostgreSQL fails), a NUL
 * character (PostgreSQL refuses it) and `\.` (PostgreSQL's end of data when alone on a line).
 * Records that span lines are left to the rewriting too, so that numbering a line is prefixing it.
 * Hand-written: papaparse does not say where a field's quotes were; this is a pass over a batch's
 * quotes and line breaks, native searches in between.
 */
export function copyReadsAsParsed(text: string, delimiter: string, newline: string, records: number): boolean {
  const lines = text.endsWith(newline) ? records : records - 1;
  return !text.includes('\0') && !text.includes('\\.') && lineBreaks(text, newline, lines) && quotesWholeFields(text, delimiter);
}

/** The lines of `text` (checked by `copyReadsAsParsed`), each starting with its number and the delimiter, numbered from `first`. */
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

/** The text without its first line (a header): checked by `copyReadsAsParsed`, so its first line is its first record. */
export function afterFirstLine(csv: CsvText): CsvText {
  const end = csv.text.indexOf(csv.newline);
  return { ...csv, text: end === -1 ? '' : csv.text.slice(end + csv.newline.length) };
}
