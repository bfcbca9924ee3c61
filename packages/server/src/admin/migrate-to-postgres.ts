import pg from 'pg';
import { connectDb, copyRows, type Db, readEmbeddedRows } from '../db/connect.js';
import { migrate } from '../db/migrate.js';

/*
 * Copies an embedded installation into an empty PostgreSQL database, table by table with COPY.
 * Not with a pg_dump of PGlite (@electric-sql/pglite-tools): that package pins an older PGlite
 * than Vigil runs, and its output is a psql script (COPY … FROM stdin blocks) that the `pg`
 * client cannot run without parsing it. COPY moves each table in the text format both ends share
 * and hands over the row counts to verify. The target's main schema is made by Vigil's own
 * migrations, so its tables, indexes and migration bookkeeping are exactly what `vigil` expects;
 * the datasets' tables (one schema per project) are re-created from the source's catalog.
 */

export interface CopiedTable {
  /** `schema.table` for a dataset's table, the bare name for Vigil's own tables. */
  name: string;
  rows: number;
}

interface TableToCopy {
  schema: string;
  table: string;
  /** The main schema's tables are made by the migrations; the datasets' tables are re-created here. */
  definition?: string;
  columns: string[];
}

const quoted = (schema: string, table: string) => `${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)}`;
const withColumns = (copy: TableToCopy) => `${quoted(copy.schema, copy.table)} (${copy.columns.map((c) => pg.escapeIdentifier(c)).join(', ')})`;

async function refuseUnlessEmpty(target: Db): Promise<void> {
  const [existing] = await target.query<{ name: string }>(
    `SELECT table_schema || '.' || table_name AS name FROM information_schema.tables
     WHERE table_schema NOT IN ('pg_catalog', 'information_schema') LIMIT 1`,
  );
  if (existing) throw new Error(`the target database is not empty (it has the table ${existing.name}); give the URL of a new, empty database`);
}

async function columnsOf(source: Db, schema: string, table: string): Promise<{ name: string; type: string; notNull: boolean }[]> {
  return source.query(
    `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS "notNull"
     FROM pg_attribute a WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
    [quoted(schema, table)],
  );
}

/**
 * Vigil's own tables, parents before the tables whose foreign keys point at them, so that every
 * row finds its parent already copied.
 */
async function mainTables(source: Db): Promise<TableToCopy[]> {
  const tables = await source.query<{ schema: string; table: string; parents: string[] }>(
    `SELECT n.nspname AS schema, c.relname AS table,
            coalesce(array_agg(DISTINCT p.relname::text) FILTER (WHERE p.oid IS NOT NULL AND p.oid <> c.oid), '{}'::text[]) AS parents
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     LEFT JOIN pg_constraint k ON k.conrelid = c.oid AND k.contype = 'f'
     LEFT JOIN pg_class p ON p.oid = k.confrelid
     WHERE n.nspname = current_schema() AND c.relkind = 'r'
     GROUP BY n.nspname, c.relname ORDER BY c.relname`,
  );
  const ordered: TableToCopy[] = [];
  const placed = new Set<string>();
  while (placed.size < tables.length) {
    const ready = tables.filter(({ table, parents }) => !placed.has(table) && parents.every((parent) => placed.has(parent)));
    if (ready.length === 0) throw new Error('the embedded database has a cycle of foreign keys Vigil does not create');
    for (const { schema, table } of ready) {
      ordered.push({ schema, table, columns: (await columnsOf(source, schema, table)).map((column) => column.name) });
      placed.add(table);
    }
  }
  return ordered;
}

/**
 * The datasets' tables, in the schemas beside the main one. Their views and read-only roles are
 * left behind: the AI component re-creates both the first time it reads a project (ProjectReaders).
 */
async function datasetTables(source: Db): Promise<TableToCopy[]> {
  const tables = await source.query<{ schema: string; table: string }>(
    `SELECT n.nspname AS schema, c.relname AS table FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE c.relkind = 'r' AND n.nspname <> current_schema() AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\\_%'
     ORDER BY 1, 2`,
  );
  return Promise.all(
    tables.map(async ({ schema, table }) => {
      const columns = await columnsOf(source, schema, table);
      const constraints = await source.query<{ name: string; definition: string }>(
        // Not-null constraints (PGlite's PostgreSQL lists them here) are part of the columns already.
        `SELECT conname AS name, pg_get_constraintdef(oid) AS definition FROM pg_constraint
         WHERE conrelid = $1::regclass AND contype IN ('p', 'u', 'c') ORDER BY conname`,
        [quoted(schema, table)],
      );
      const definition = [
        ...columns.map((column) => `${pg.escapeIdentifier(column.name)} ${column.type}${column.notNull ? ' NOT NULL' : ''}`),
        ...constraints.map((constraint) => `CONSTRAINT ${pg.escapeIdentifier(constraint.name)} ${constraint.definition}`),
      ].join(', ');
      return { schema, table, definition, columns: columns.map((column) => column.name) };
    }),
  );
}

async function copySequences(source: Db, target: Db, targetSchemaOf: (schema: string) => string): Promise<void> {
  const sequences = await source.query<{ schema: string; name: string; value: string }>(
    `SELECT schemaname AS schema, sequencename AS name, last_value::text AS value FROM pg_sequences WHERE last_value IS NOT NULL`,
  );
  for (const { schema, name, value } of sequences) {
    await target.query('SELECT setval($1::regclass, $2::bigint, true)', [quoted(targetSchemaOf(schema), name), value]);
  }
}

/** Pages of 8 kB read by one COPY: a table of any size moves in pieces of about 32 MB, never whole in memory. */
export const defaultPagesPerCopy = 4096;

/**
 * One table's rows, a range of its pages at a time: PostgreSQL scans a range of tuple ids
 * (`ctid`) directly (a TID range scan), so each piece costs only its own pages.
 */
async function copyTable(source: Db, target: Db, from: TableToCopy, to: TableToCopy, pagesPerCopy: number): Promise<void> {
  const [{ pages }] = await source.query<{ pages: number }>(
    `SELECT (pg_relation_size($1::regclass) / current_setting('block_size')::int)::int AS pages`,
    [quoted(from.schema, from.table)],
  );
  const columns = from.columns.map((column) => pg.escapeIdentifier(column)).join(', ');
  for (let first = 0; first < Math.max(pages, 1); first += pagesPerCopy) {
    const range = `ctid >= '(${first},0)'::tid AND ctid < '(${first + pagesPerCopy},0)'::tid`;
    const rows = await readEmbeddedRows(source, `(SELECT ${columns} FROM ${quoted(from.schema, from.table)} WHERE ${range})`);
    if (rows !== '') await copyRows(target, withColumns(to), rows);
  }
}

async function countRows(db: Db, copy: TableToCopy): Promise<number> {
  const [{ count }] = await db.query<{ count: number }>(`SELECT count(*)::int AS count FROM ${quoted(copy.schema, copy.table)}`);
  return count;
}

/**
 * Copies every table of `source` (an embedded database, migrated and not in use) into the empty
 * database at `targetUrl`, then compares the row counts of every table on both sides.
 */
export async function copyEmbeddedToPostgres(source: Db, targetUrl: string, pagesPerCopy = defaultPagesPerCopy): Promise<CopiedTable[]> {
  const target = await connectDb({ databaseUrl: targetUrl, poolSize: 2 });
  try {
    await refuseUnlessEmpty(target);
    await migrate(target);
    // Replaced by the source's own rows, so the bookkeeping says when each migration really ran.
    await target.query('DELETE FROM schema_migrations');
    const [{ main }] = await source.query<{ main: string }>('SELECT current_schema() AS main');
    const [{ targetMain }] = await target.query<{ targetMain: string }>('SELECT current_schema() AS "targetMain"');
    const tables = [...(await mainTables(source)), ...(await datasetTables(source))];
    const targetSchemaOf = (schema: string) => (schema === main ? targetMain : schema);
    const targetOf = (copy: TableToCopy): TableToCopy => ({ ...copy, schema: targetSchemaOf(copy.schema) });
    for (const copy of tables) {
      if (copy.definition) {
        await target.exec(`CREATE SCHEMA IF NOT EXISTS ${pg.escapeIdentifier(copy.schema)}`);
        await target.exec(`CREATE TABLE ${quoted(copy.schema, copy.table)} (${copy.definition})`);
      }
      await copyTable(source, target, copy, targetOf(copy), pagesPerCopy);
    }
    await copySequences(source, target, targetSchemaOf);
    const copied: CopiedTable[] = [];
    for (const copy of tables) {
      const [rows, arrived] = [await countRows(source, copy), await countRows(target, targetOf(copy))];
      const name = copy.schema === main ? copy.table : `${copy.schema}.${copy.table}`;
      if (rows !== arrived) throw new Error(`${name} has ${rows} rows in the embedded database but ${arrived} in PostgreSQL`);
      copied.push({ name, rows });
    }
    return copied;
  } finally {
    await target.close();
  }
}
