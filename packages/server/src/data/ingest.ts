import type { Db, Queryable } from '../db/connect.js';
import { type ColumnType, type DatasetColumn, conversionSql, inferType, sqlTypeOf, storedValue, widenFor } from './column-types.js';
import { CopyBatcher, copyField } from './copy-batcher.js';
import { badFile } from './file-problems.js';
import { columnIdentifiers, quoteIdentifier } from './identifiers.js';
import { type SourceKind, type TableRecord, locate } from './table-record.js';

export const maxColumns = 500;
const sampleRows = 1000;

export interface IngestSource {
  kind: SourceKind;
  records: AsyncIterable<TableRecord>;
  /** Column names when the records carry no header row (a database result). */
  headers?: string[];
  /** Types known from the source; values that do not fit still widen the column. */
  sourceTypes?: ColumnType[];
  /** Types the caller chose, by original or SQL name: a value that does not fit fails the ingest. */
  pinnedTypes?: Record<string, ColumnType>;
  maxRows?: number;
}

export interface IngestTarget {
  db: Db;
  schema: string;
  table: string;
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
  return trimmed;
}

/** Reads the first record as the header and checks every later record's width. */
async function* withCheckedWidth(kind: SourceKind, records: AsyncIterable<TableRecord>, width: number): AsyncGenerator<TableRecord> {
  for await (const record of records) {
    const { values } = record;
    if (values.length === width) {
      yield record;
    } else if (kind === 'xlsx') {
      const extra = values.findIndex((cell, index) => index >= width && cell.trim() !== '');
      if (extra !== -1) throw badFile(`${locate(kind, record.rowNumber, extra)} has a value but its column has no header.`);
      yield { values: values.length > width ? values.slice(0, width) : [...values, ...Array<string>(width - values.length).fill('')], rowNumber: record.rowNumber };
    } else {
      throw badFile(`Row ${record.rowNumber} has ${values.length} fields but the header has ${width}.`);
    }
  }
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
  const iterator = source.records[Symbol.asyncIterator]();
  let headers = source.headers;
  if (!headers) {
    const first = await iterator.next();
    if (first.done) throw badFile('The file is empty.');
    headers = checkHeader(source.kind, first.value.values);
  }
  const rest = { [Symbol.asyncIterator]: () => iterator };
  const records = withCheckedWidth(source.kind, rest, headers.length)[Symbol.asyncIterator]();
  const sample: TableRecord[] = [];
  let next = await records.next();
  for (; !next.done && sample.length < sampleRows; next = await records.next()) sample.push(next.value);
  if (!next.done) sample.push(next.value);

  const columns = chooseColumns(source, headers, sample);
  for (const column of Object.keys(source.pinnedTypes ?? {})) {
    if (!columns.some((c) => c.name === column || c.originalName === column)) {
      throw badFile(`The file has no column "${column}" to give a type.`);
    }
  }
  const table = `${quoteIdentifier(target.schema)}.${quoteIdentifier(target.table)}`;
  await createSchema(target.db, target.schema);
  await target.db.exec(
    `CREATE TABLE ${table} (_row_id bigint NOT NULL, ${columns.map((c) => `${quoteIdentifier(c.name)} ${sqlTypeOf[c.type]}`).join(', ')})`,
  );
  try {
    const loader = new RowLoader(target.db, table, columns, source.kind);
    for (const record of sample) await loader.add(record, source.maxRows);
    if (!next.done) for (next = await records.next(); !next.done; next = await records.next()) await loader.add(next.value, source.maxRows);
    await loader.finish();
    await target.db.exec(`ALTER TABLE ${table} ADD PRIMARY KEY (_row_id); ANALYZE ${table}`);
    const [size] = await target.db.query<{ bytes: number }>(`SELECT pg_total_relation_size($1::regclass)::float8 AS bytes`, [table]);
    return { columns: columns.map(({ name, originalName, type }) => ({ name, originalName, type })), rowCount: loader.rowCount, sizeBytes: size.bytes };
  } catch (error) {
    await dropTable(target.db, target.schema, target.table);
    throw error;
  }
}

class RowLoader {
  rowCount = 0;
  private readonly batcher: CopyBatcher;

  constructor(
    private readonly db: Db,
    private readonly table: string,
    private readonly columns: LoadColumn[],
    private readonly kind: SourceKind,
  ) {
    this.batcher = new CopyBatcher(db, `${table} (_row_id, ${columns.map((c) => quoteIdentifier(c.name)).join(', ')})`);
  }

  async add(record: TableRecord, maxRows?: number): Promise<void> {
    if (maxRows !== undefined && this.rowCount >= maxRows) {
      throw badFile(`The source has more than ${maxRows} rows, the most one import takes (VIGIL_IMPORT_MAX_ROWS).`);
    }
    this.rowCount += 1;
    const fields = [String(this.rowCount)];
    for (let index = 0; index < this.columns.length; index += 1) {
      const raw = record.values[index];
      if (raw === '' || raw === undefined) {
        fields.push('\\N');
        continue;
      }
      let stored = storedValue(raw, this.columns[index].type);
      if (stored === undefined) stored = await this.widen(index, raw, record.rowNumber);
      fields.push(copyField(stored));
    }
    await this.batcher.add(fields);
  }

  finish(): Promise<void> {
    return this.batcher.drain();
  }

  private async widen(index: number, raw: string, rowNumber: number): Promise<string> {
    const column = this.columns[index];
    if (column.pinned) {
      throw badFile(`${locate(this.kind, rowNumber, index)}: "${raw.slice(0, 100)}" is not a valid ${column.type} for column "${column.originalName}".`);
    }
    const to: ColumnType = widenFor(column.type, raw);
    await this.batcher.drain();
    const name = quoteIdentifier(column.name);
    await this.db.exec(`ALTER TABLE ${this.table} ALTER COLUMN ${name} TYPE ${sqlTypeOf[to]} USING ${conversionSql(name, column.type, to)}`);
    column.type = to;
    return storedValue(raw, to)!;
  }
}

/** Creates the project's schema; two first datasets arriving together may race, which is harmless. */
export async function createSchema(db: Queryable, schema: string): Promise<void> {
  try {
    await db.exec(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(schema)}`);
  } catch (error) {
    if (!['23505', '42P06'].includes((error as { code?: string }).code ?? '')) throw error;
  }
}

export async function dropTable(db: Queryable, schema: string, table: string): Promise<void> {
  await db.exec(`DROP TABLE IF EXISTS ${quoteIdentifier(schema)}.${quoteIdentifier(table)}`);
}
