/** One row of a file or a source table, as text, and where it was (1 is the header row). Readers yield them in batches. */
export interface TableRecord {
  values: string[];
  rowNumber: number;
}

/** CSV text as it came, from a record's start; PostgreSQL's CSV COPY may load it as it is (csv-as-copy.ts). */
export interface CsvText {
  text: string;
  delimiter: string;
  newline: string;
}

/**
 * A CSV reader's batch: its text, and its records, parsed only when asked for (a batch loaded as
 * its text never is). Either `records` is called or `takenAsText`, before the reader's next batch.
 */
export interface CsvLines {
  readonly csv: CsvText;
  records(): TableRecord[];
  /** The batch was loaded as its text, `lines` lines of a record each. */
  takenAsText(lines: number): void;
}

/** Records as a reader yields them, in batches: an array, or a CSV reader's lines. */
export type RecordBatch = TableRecord[] | CsvLines;

export type SourceKind = 'csv' | 'xlsx' | 'database';

/** Where a value is, in the words of the file it came from: "row 7" for CSV, "cell C7" for Excel. */
export function locate(kind: SourceKind, rowNumber: number, column: number): string {
  if (kind === 'xlsx') return `cell ${columnLetters(column)}${rowNumber}`;
  return `row ${rowNumber}`;
}

function columnLetters(index: number): string {
  let letters = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return letters;
}
