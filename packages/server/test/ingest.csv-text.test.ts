import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { afterHeaderLine, linesAsStored, numberedLines } from '../src/data/csv-as-copy.js';
import type { ColumnType } from '../src/data/column-types.js';
import { readCsvRecords } from '../src/data/csv-reader.js';
import { loadingDb } from '../src/db/connect.js';
import { type IngestResult, dropTable, ingest } from '../src/data/ingest.js';
import type { RecordBatch } from '../src/data/table-record.js';
import { countRowsLoaded, datasetRowsLoaded } from '../src/platform/metrics.js';
import { inChunks } from './support/data.js';
import { databaseKinds, openTestDatabase, type TestDatabase } from './support/databases.js';

/** How `linesAsStored` takes `text` when every column is text: its line count, or why not. */
const asText = (text: string, width: number, delimiter = ',', newline = '\n') => linesAsStored({ text, delimiter, newline }, Array<ColumnType>(width).fill('text'));

describe('CSV text that COPY reads as papaparse did', () => {
  it('takes RFC 4180 text, quoted delimiters, doubled quotes and empty fields among it', () => {
    expect(asText('1,a,"b, c"\n2,"say ""hi""",""\n', 3)).toBe(2);
    expect(asText('1;a\r\n2;"b;c"\r\n', 2, ';', '\r\n')).toBe(2);
    expect(asText('1\ta\n2\tb', 2, '\t')).toBe(2);
    expect(asText('back\\slash,\\N\n', 2)).toBe(1);
    expect(asText('a,,\n,,\n', 3), 'empty fields, at the end of a line too').toBe(2);
  });

  it('refuses what the two read differently, records that span lines, blank lines and lines of another width', () => {
    const refused: [string, string][] = [
      ['1,mid"quote\n', 'a quote inside an unquoted field'],
      ['1,"closed" after\n', 'text after a closing quote'],
      ['1, "late"\n', 'a quote after a space'],
      ['1,"never closed\n', 'an unclosed quote'],
      ['1,"two\nlines"\n', 'a record over two lines'],
      ['1,a\r\n2,b\n', 'a carriage return in a file of line feeds'],
      ['1,a\0b\n', 'a NUL character'],
      ['\\.\n2,b\n', 'the end-of-data marker'],
      ['1,a\n\n2,b\n', 'a blank line'],
      ['1,a,b\n', 'a line with a field too many'],
      ['1\n', 'a line with a field too few'],
    ];
    for (const [text, why] of refused) expect(asText(text, 2), why).toBe('rewrite');
    expect(asText('1,a\r\n2,b\n3,c\r\n', 2, ',', '\r\n'), 'a lone line feed in a file of CRLF').toBe('rewrite');
  });

  it('checks each typed value: one that does not fit rewrites its batch, one stored otherwise the rest of the file', () => {
    const types: ColumnType[] = ['integer', 'timestamp', 'text'];
    const verdict = (text: string) => linesAsStored({ text, delimiter: ',', newline: '\n' }, types);
    expect(verdict('1,2026-03-01T10:00:00Z,x\n"2",,y\n')).toBe(2);
    expect(verdict('1,2026-03-01T10:00:00Z,x\nX2,,y\n')).toBe('rewrite');
    expect(verdict('1,2026-03-01T10:00:00,x\n')).toBe('rewriteFromHere');
  });

  it('numbers each line, the last one with or without its line break, and drops a header line that is a whole record', () => {
    expect(numberedLines('a,b\nc,d\n', '\n', ',', 7)).toBe('7,a,b\n8,c,d\n');
    expect(numberedLines('a;b\r\nc;d', '\r\n', ';', 1)).toBe('1;a;b\n2;c;d\n');
    expect(afterHeaderLine({ text: 'x;y\r\na;b\r\n', delimiter: ';', newline: '\r\n' }, 2)?.text).toBe('a;b\r\n');
    expect(afterHeaderLine({ text: 'x;y', delimiter: ';', newline: '\n' }, 2)?.text).toBe('');
    expect(afterHeaderLine({ text: 'x,"y\n"",z\n1,2\n', delimiter: ',', newline: '\n' }, 2), 'a header over two lines').toBeUndefined();
  });
});

/** A deterministic stream of numbers in [0, 1) (mulberry32), so that a failing file can be made again. */
function randomFrom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Notes as a CSV writer quotes them, COPY and papaparse agreeing on each. */
const agreedNotes = ['plain', '"with, a comma"', '"say ""hi"""', '""', '', 'back\\slash', '\\N', ' spaced ', 'ünïcödé ✓', '"semi;colon"', 'tab\there'];
/** Notes papaparse reads otherwise than COPY would: each sends its batch through the rewriting. */
const disputedNotes = ['mid"quote', '"closed" after', '"two\nlines"', '\\.', 'nul\0byte', 'lone\rreturn'];

interface FileShape {
  rows: number;
  delimiter: string;
  newline: string;
  /** Rows (1-based, after the header) where the disputed notes go, in turn. */
  disputedAt: number[];
  /** A row whose code is not an integer: the column widens to text there. */
  widensAt: number;
  /** From this row on times have no zone: stored with one added, so the rest goes through the rewriting. */
  unzonedFrom: number;
}

function csvFile(shape: FileShape, seed: number): string {
  const random = randomFrom(seed);
  const pick = <T,>(list: T[]): T => list[Math.floor(random() * list.length)];
  const lines = [['id', 'label', 'amount', 'paid', 'day', 'at', 'code', 'note'].join(shape.delimiter)];
  for (let row = 1; row <= shape.rows; row += 1) {
    const day = `2026-0${1 + (row % 9)}-${String(1 + (row % 28)).padStart(2, '0')}`;
    const at = `${day}T${String(row % 24).padStart(2, '0')}:${String(row % 60).padStart(2, '0')}:00${row >= shape.unzonedFrom ? '' : pick(['Z', '+02:00'])}`;
    const disputed = shape.disputedAt.indexOf(row);
    const note = disputed === -1 ? pick(agreedNotes) : disputedNotes[disputed % disputedNotes.length];
    const fields = [
      String(row),
      pick(['north', 'south', '', `label ${row}`]),
      pick(['12.50', '-3', '0', '', String(row * 7)]),
      pick(['true', 'false', '']),
      day,
      at,
      row === shape.widensAt ? 'X12' : String(row % 500),
      shape.delimiter === ',' ? note : note.replaceAll('\t', ' ').replaceAll(',', shape.delimiter),
    ];
    lines.push(fields.join(shape.delimiter));
  }
  return `${lines.join(shape.newline)}${shape.newline}`;
}

/** The same batches without their text, so that every batch is rewritten row by row. */
async function* rewrittenOnly(batches: AsyncIterable<RecordBatch>): AsyncGenerator<RecordBatch> {
  for await (const batch of batches) yield Array.isArray(batch) ? batch : batch.records();
}

describe.each(databaseKinds())('a CSV loaded as its text or rewritten, on %s', (kind) => {
  let database: TestDatabase;
  const schema = `p_csv_text_${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    database = await openTestDatabase(kind);
  });
  afterAll(async () => {
    await database.db.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await database.drop();
  });
  /** vigil_dataset_rows_loaded_total by `load`, as /metrics shows it. */
  async function rowsLoaded(): Promise<{ asWritten: number; rewritten: number }> {
    const { values } = await datasetRowsLoaded.get();
    const count = (load: string) => values.find((value) => value.labels.load === load)?.value ?? 0;
    return { asWritten: count('as_written'), rewritten: count('rewritten') };
  }

  async function load(table: string, text: string, rewriteAll: boolean): Promise<{ result: IngestResult; rows: unknown[]; asWritten: number; rewritten: number }> {
    const before = await rowsLoaded();
    const records = readCsvRecords(inChunks(text, 8192));
    const result = await ingest({ kind: 'csv', records: rewriteAll ? rewrittenOnly(records) : records }, { db: loadingDb(database.db), schema, table, countLoaded: countRowsLoaded });
    const after = await rowsLoaded();
    const rows = await database.db.query<{ row: unknown }>(`SELECT to_jsonb(t) AS row FROM ${schema}.${table} t ORDER BY _row_id`);
    return { result, rows: rows.map(({ row }) => row), asWritten: after.asWritten - before.asWritten, rewritten: after.rewritten - before.rewritten };
  }

  const shapes: [string, FileShape][] = [
    ['commas and line feeds', { rows: 9000, delimiter: ',', newline: '\n', disputedAt: [1500, 2300, 3100, 3900, 4700, 5500], widensAt: 6000, unzonedFrom: 8000 }],
    ['semicolons and CRLF', { rows: 6000, delimiter: ';', newline: '\r\n', disputedAt: [1500, 2300, 3100, 3900, 4700, 5500], widensAt: 3500, unzonedFrom: 99_999 }],
    ['tabs', { rows: 5000, delimiter: '\t', newline: '\n', disputedAt: [], widensAt: 99_999, unzonedFrom: 99_999 }],
  ];

  it.each(shapes)('stores the same rows and types either way: %s', async (label, shape) => {
    const text = csvFile(shape, label.length);
    const asText = await load('as_text', text, false);
    const rewritten = await load('rewritten', text, true);
    for (const table of ['as_text', 'rewritten']) await dropTable(database.db, schema, table);
    // The tables' sizes may differ by how the pages were filled, not by what they hold.
    expect({ ...asText.result, sizeBytes: 0 }).toEqual({ ...rewritten.result, sizeBytes: 0 });
    expect(asText.rows).toEqual(rewritten.rows);
    // papaparse reads a closing quote with text after it as going on to the next quote, across lines.
    expect(asText.result.rowCount).toEqual(shape.disputedAt.length === 0 ? shape.rows : expect.any(Number));
    expect(asText.rows.map((row) => (row as { _row_id: number })._row_id)).toEqual(Array.from({ length: asText.result.rowCount }, (_, index) => index + 1));
    expect(asText.asWritten, 'rows loaded as their text').toBeGreaterThan(0);
    const anyRewritten = shape.disputedAt.length > 0 || shape.widensAt <= shape.rows || shape.unzonedFrom <= shape.rows;
    expect(asText.rewritten > 0, 'the disputed batches, a widened column and the rest after a value stored otherwise').toBe(anyRewritten);
    expect(asText.asWritten + asText.rewritten).toBe(asText.result.rowCount);
    expect(rewritten).toMatchObject({ asWritten: 0, rewritten: rewritten.result.rowCount });
    if (shape.widensAt < shape.rows) expect(asText.result.columns.find((column) => column.name === 'code')?.type).toBe('text');
  });

  it('stores the same rows either way, or refuses the file alike, wherever stray quotes and line breaks fall', async () => {
    const notes = ['plain', '"q, c"', '""', '', 'a"b', '"a"b', '"x\ny"', '"', ' "s"', 'r\rr', '"y""z"'];
    const codes = ['17', '"18"', '007', ' 5', 'X', ''];
    for (let seed = 1; seed <= 4; seed += 1) {
      const random = randomFrom(seed);
      const rare = (list: string[]) => (random() < 0.0005 ? list[Math.floor(random() * list.length)] : list[0]);
      const lines = ['n,code,note', ...Array.from({ length: 8_000 }, (_, index) => `${index},${rare(codes)},${rare(notes)}`)];
      const text = `${lines.join('\n')}\n`;
      const outcome = async (table: string, rewriteAll: boolean) => {
        try {
          const { result, rows } = await load(table, text, rewriteAll);
          return { columns: result.columns, rows };
        } catch (error) {
          return { refused: (error as Error).message };
        } finally {
          await dropTable(database.db, schema, table);
        }
      };
      expect(await outcome('stray_as_text', false), `seed ${seed}`).toEqual(await outcome('stray_rewritten', true));
    }
  });

  it('keeps empty fields null and text as written when loading the text', async () => {
    const filler = Array.from({ length: 3000 }, (_, index) => `${index},${'x'.repeat(60)}`);
    const text = ['n,note', ...filler, '5000,""', '5001,', '5002,\\N', '5003," padded "', '5004,"a ""quote"""', ''].join('\n');
    const { rows, asWritten } = await load('notes', text, false);
    expect(asWritten).toBeGreaterThan(1000);
    expect(rows.slice(-5).map((row) => (row as { note: string | null }).note)).toEqual([null, null, '\\N', ' padded ', 'a "quote"']);
    await dropTable(database.db, schema, 'notes');
  });
});
