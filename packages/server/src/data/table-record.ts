/** One row of a file or a source table, as text, and where it was (1 is the header row). Readers yield them in batches. */
export interface TableRecord {
  values: string[];
  rowNumber: number;
}

/** A CSV batch's text, as it came, when PostgreSQL's CSV COPY reads it into the same fields (csv-as-copy.ts). */
export interface CsvText {
  text: string;
  delimiter: string;
  newline: string;
}

/** Records as a reader yields them; a CSV reader adds their text when COPY may load that as it is. */
export type RecordBatch = TableRecord[] & { csv?: CsvText };

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
