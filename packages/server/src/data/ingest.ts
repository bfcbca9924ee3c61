import type { LoadingDb, Queryable } from '../db/connect.js';
import { type ColumnType, type DatasetColumn, conversionSql, inferType, sqlTypeOf, storedValue, widenFor } from './column-types.js';
import { CopyBatcher, copyField } from './copy-batcher.js';
import { afterHeaderLine, linesAsStored, numberedLines } from './csv-as-copy.js';
import { badFile } from './file-problems.js';
import { columnIdentifiers, quoteIdentifier } from './identifiers.js';
import { lockProjectSchemaSql } from '../platform/project-schema.js';
import { type CsvText, type RecordBatch, type SourceKind, type TableRecord, locate } from './table-record.js';

export const maxColumns = 500;
/** A column's original name is kept and sent to the AI provider with every question: it stays short. */
export const maxHeaderChars = 200;
const sampleRows = 1000;

export interface IngestSource {
  kind: SourceKind;
  records: AsyncIterable<RecordBatch>;
  /** Column names when the records carry no header row (a database result). */
  headers?: string[];
  /** Types known from the source; values that do not fit still widen the column. */
  sourceTypes?: ColumnType[];
  /** Types the caller chose, by original or SQL name: a value that does not fit fails the ingest. */
  pinnedTypes?: Record<string, ColumnType>;
  maxRows?: number;
}

/** How a batch of rows went to COPY: as the CSV text it came in, or converted field by field. */
export type RowsLoad = 'as_written' | 'rewritten';

export interface IngestTarget {
  db: LoadingDb;
  schema: string;
  table: string;
  /** Told of every batch loaded (the metric vigil_dataset_rows_loaded_total). */
  countLoaded: (load: RowsLoad, rows: number) => void;
}

export interface IngestResult {
  columns: DatasetColumn[];
  rowCount: number;
  sizeBytes: number;
}

interface LoadColumn extends DatasetColumn {
  pinned: boolean;
}

const looksLikeData = (cell: string) => cell.trim() !== '' && ['integer', 'numeric', 'date', 'timestamp'].includes(inferType([cell]));

function checkHeader(kind: SourceKind, header: string[]): string[] {
  let width = header.length;
  if (kind === 'xlsx') while (width > 0 && header[width - 1].trim() === '') width -= 1;
  const trimmed = header.slice(0, width);
  if (trimmed.every((cell) => cell.trim() === '')) throw badFile('The file has no header: its first row must name the columns.');
  if (trimmed.every(looksLikeData)) {
    throw badFile(`The file has no header: its first row holds values (${trimmed.slice(0, 3).join(', ')}) instead of column names.`);
  }
  if (trimmed.length > maxColumns) throw badFile(`The file has ${trimmed.length} columns; at most ${maxColumns} are accepted.`);
  const long = trimmed.findIndex((cell) => cell.length > maxHeaderChars);
  if (long !== -1) {
    throw badFile(`The header's ${locate(kind, 1, long)}, column ${long + 1}, is ${trimmed[long].length} characters long; a column name may have at most ${maxHeaderChars}.`);
  }
  return trimmed;
}

/** Every record at the header's width: Excel rows are padded or trimmed of empty cells, CSV rows must match. */
function checkWidth(kind: SourceKind, record: TableRecord, width: number): TableRecord {
  const { values } = record;
  if (values.length === width) return record;
  if (kind !== 'xlsx') throw badFile(`Row ${record.rowNumber} has ${values.length} fields but the header has ${width}.`);
  const extra = values.findIndex((cell, index) => index >= width && cell.trim() !== '');
  if (extra !== -1) throw badFile(`${locate(kind, record.rowNumber, extra)} has a value but its column has no header.`);
  const fitted = values.length > width ? values.slice(0, width) : [...values, ...Array<string>(width - values.length).fill('')];
  return { values: fitted, rowNumber: record.rowNumber };
}

/** A batch on its way to the table: its records checked for width, parsed when asked for; a CSV batch's text, and how to tell its reader it was loaded as such. */
interface LoadBatch {
  records(): TableRecord[];
  csv?: CsvText;
  takenAsText?(lines: number): void;
}

function checkedBatch(kind: SourceKind, batch: RecordBatch, width: number): LoadBatch {
  const check = (records: TableRecord[]) => records.map((record) => checkWidth(kind, record, width));
  if (Array.isArray(batch)) return { records: () => check(batch) };
  let checked: TableRecord[] | undefined;
  return { records: () => (checked ??= check(batch.records())), csv: batch.csv, takenAsText: (lines) => batch.takenAsText(lines) };
}

/** The header (first record, unless given) and the batches after it, each record checked for width. */
async function* checkedBatches(source: IngestSource, header: { names?: string[] }): AsyncGenerator<LoadBatch> {
  if (source.headers) header.names = source.headers;
  for await (const batch of source.records) {
    if (header.names !== undefined) {
      yield checkedBatch(source.kind, batch, header.names.length);
      continue;
    }
    const [first, ...rest] = Array.isArray(batch) ? batch : batch.records();
    if (first === undefined) continue;
    header.names = checkHeader(source.kind, first.values);
    const afterHeader = checkedBatch(source.kind, rest, header.names.length);
    // Parsed already: the reader counts its rows, so the text after the header goes without telling it.
    if (!Array.isArray(batch)) afterHeader.csv = afterHeaderLine(batch.csv, first.values.length);
    yield afterHeader;
  }
  if (header.names === undefined) throw badFile('The file is empty.');
}

function chooseColumns(source: IngestSource, headers: string[], sample: TableRecord[]): LoadColumn[] {
  const names = columnIdentifiers(headers);
  const pinned = source.pinnedTypes ?? {};
  return headers.map((originalName, index) => {
    const chosen = pinned[originalName] ?? pinned[names[index]];
    const type = chosen ?? source.sourceTypes?.[index] ?? inferType(sample.map((record) => record.values[index]));
    return { name: names[index], originalName, type, pinned: chosen !== undefined };
  });
}

/**
 * Loads a file's or a query's records into a new table `schema.table`: header → SQL names,
 * types inferred from the first rows (or given), then COPY in batches. A later value that does
 * not fit its column widens it (integer → numeric → text, date → timestamp → text) unless the
 * caller pinned the type, in which case the ingest fails naming the cell. On failure the table is gone.
 */
export async function ingest(source: IngestSource, target: IngestTarget): Promise<IngestResult> {
  const header: { names?: string[] } = {};
  const batches = checkedBatches(source, header);
  try {
    const sampleBatches: LoadBatch[] = [];
    let sampled = 0;
    let next = await batches.next();
    for (; !next.done; next = await batches.next()) {
      sampleBatches.push(next.value);
      sampled += next.value.records().length;
      if (sampled >= sampleRows) break;
    }
    const columns = chooseColumns(source, header.names!, sampleBatches.flatMap((batch) => batch.records()));
    for (const column of Object.keys(source.pinnedTypes ?? {})) {
      if (!columns.some((c) => c.name === column || c.originalName === column)) {
        throw badFile(`The file has no column "${column}" to give a type.`);
      }
    }
    const table = `${quoteIdentifier(target.schema)}.${quoteIdentifier(target.table)}`;
    await createSchema(target.db, target.schema);
    const definitions = ['_row_id bigint NOT NULL', ...columns.map((c) => `${quoteIdentifier(c.name)} ${sqlTypeOf[c.type]}`)];
    await target.db.exec(`CREATE TABLE ${table} (${definitions.join(', ')})`);
    try {
      const loader = new RowLoader(target, table, columns, source.kind, source.maxRows);
      for (const batch of sampleBatches) await loader.add(batch);
      if (!next.done) for (next = await batches.next(); !next.done; next = await batches.next()) await loader.add(next.value);
      await loader.finish();
      await target.db.exec(`ALTER TABLE ${table} ADD PRIMARY KEY (_row_id)`);
      const [size] = await target.db.query<{ bytes: number }>(`SELECT pg_total_relation_size($1::regclass)::float8 AS bytes`, [table]);
      return { columns: columns.map(({ name, originalName, type }) => ({ name, originalName, type })), rowCount: loader.rowCount, sizeBytes: size.bytes };
    } catch (error) {
      await dropTable(target.db, target.schema, target.table);
      throw error;
    }
  } finally {
    // A reader left midway (a refused value) is told to stop, so that it closes what it holds (an xlsx's spool file).
    await batches.return(undefined);
  }
}

/** Types whose stored values are digits, signs, dots, letters and dashes only: nothing COPY would need escaped. */
const plainTypes: ReadonlySet<ColumnType> = new Set(['integer', 'numeric', 'boolean', 'date']);

class RowLoader {
  rowCount = 0;
  private readonly batcher: CopyBatcher;
  /** Whether CSV text is still loaded as it came: not once a value has needed rewriting (a file keeps its ways). */
  private textAsItCame = true;
  private csvOptions?: string;

  constructor(
    private readonly target: IngestTarget,
    private readonly table: string,
    private readonly columns: LoadColumn[],
    private readonly kind: SourceKind,
    private readonly maxRows: number | undefined,
  ) {
    this.batcher = new CopyBatcher(target.db, `${table} (${['_row_id', ...columns.map((c) => quoteIdentifier(c.name))].join(', ')})`);
  }

  /**
   * Loads a batch: as the CSV text it came in when COPY reads every value of it as stored
   * (csv-as-copy.ts), else converted to COPY rows. Awaits only to send a full batch or to widen a column.
   */
  async add(batch: LoadBatch): Promise<void> {
    const { csv } = batch;
    const verdict = csv && this.textAsItCame && this.maxRows === undefined ? linesAsStored(csv, this.columns.map((column) => column.type)) : 'rewrite';
    if (csv && typeof verdict === 'number') {
      await this.batcher.use((this.csvOptions ??= csvCopyOptions(csv, this.columns)));
      this.batcher.addText(numberedLines(csv.text, csv.newline, csv.delimiter, this.rowCount + 1), verdict);
      batch.takenAsText?.(verdict);
      this.rowCount += verdict;
      this.target.countLoaded('as_written', verdict);
    } else {
      if (verdict === 'rewriteFromHere') this.textAsItCame = false;
      const records = batch.records();
      await this.batcher.use('');
      for (let stop = this.convert(records, 0); stop < records.length; stop = this.convert(records, stop)) await this.widen(records[stop]);
      this.target.countLoaded('rewritten', records.length);
    }
    await this.batcher.sendWhenFull();
  }

  finish(): Promise<void> {
    return this.batcher.drain();
  }

  /**
   * Adds the records from `from` on as COPY lines, up to the first with a value its column's type
   * does not hold: that record's index, or the count when every one was added. Kept apart from the
   * awaits in `add`: V8 compiled the hot loop inside the async method while the code after it had
   * not run yet, and the compiled method was deoptimized at the end of every call.
   */
  private convert(records: TableRecord[], from: number): number {
    const { columns } = this;
    for (let at = from; at < records.length; at += 1) {
      if (this.maxRows !== undefined && this.rowCount >= this.maxRows) {
        throw badFile(`The source has more than ${this.maxRows} rows, the most one import takes (VIGIL_IMPORT_MAX_ROWS).`);
      }
      const { values } = records[at];
      let line = String(this.rowCount + 1);
      for (let index = 0; index < columns.length; index += 1) {
        const raw = values[index];
        if (raw === '' || raw === undefined) {
          line += '\t\\N';
          continue;
        }
        const stored = storedValue(raw, columns[index].type);
        if (stored === undefined) return at;
        line += `\t${plainTypes.has(columns[index].type) ? stored : copyField(stored)}`;
      }
      this.rowCount += 1;
      this.batcher.addLine(line);
    }
    return records.length;
  }

  /** Widens the first column whose value in `record` its type does not hold; rows before it are loaded first. */
  private async widen(record: TableRecord): Promise<void> {
    const index = this.columns.findIndex((column, at) => {
      const raw = record.values[at];
      return raw !== '' && raw !== undefined && storedValue(raw, column.type) === undefined;
    });
    const column = this.columns[index];
    const raw = record.values[index];
    if (column.pinned) {
      throw badFile(`${locate(this.kind, record.rowNumber, index)}: "${raw.slice(0, 100)}" is not a valid ${column.type} for column "${column.originalName}".`);
    }
    const to: ColumnType = widenFor(column.type, raw);
    await this.batcher.drain();
    const name = quoteIdentifier(column.name);
    await this.target.db.exec(`ALTER TABLE ${this.table} ALTER COLUMN ${name} TYPE ${sqlTypeOf[to]} USING ${conversionSql(name, column.type, to)}`);
    column.type = to;
  }
}

/** COPY's options for CSV text as papaparse read it: an empty field is null, quoted or not, as `convert` sends it. */
function csvCopyOptions(csv: CsvText, columns: DatasetColumn[]): string {
  const delimiter = csv.delimiter === '\t' ? "E'\\t'" : `'${csv.delimiter}'`;
  return `(FORMAT csv, DELIMITER ${delimiter}, FORCE_NULL (${columns.map((c) => quoteIdentifier(c.name)).join(', ')}))`;
}

/** Creates the project's schema; two first datasets arriving together may race, which is harmless. */
export async function createSchema(db: Queryable, schema: string): Promise<void> {
  try {
    await db.exec(`${lockProjectSchemaSql(schema)}; CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(schema)}`);
  } catch (error) {
    if (!['23505', '42P06'].includes((error as { code?: string }).code ?? '')) throw error;
  }
}

export async function dropTable(db: Queryable, schema: string, table: string): Promise<void> {
  await db.exec(`${lockProjectSchemaSql(schema)}; DROP TABLE IF EXISTS ${quoteIdentifier(schema)}.${quoteIdentifier(table)}`);
}
