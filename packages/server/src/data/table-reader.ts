import type { Queryable } from '../db/connect.js';
import { type DatasetColumn, outputInteger, outputSql } from './column-types.js';
import { quoteIdentifier } from './identifiers.js';

export interface TablePosition {
  schema: string;
  table: string;
  columns: DatasetColumn[];
}

export interface StoredRow {
  _row_id: number;
  [column: string]: unknown;
}

/** Up to `limit` rows after `afterRowId`, in load order, with numbers as numbers and times as ISO text. */
export async function readRows(db: Queryable, at: TablePosition, afterRowId: number, limit: number): Promise<StoredRow[]> {
  const list = at.columns.map((c) => `${outputSql(quoteIdentifier(c.name), c.type)} AS ${quoteIdentifier(c.name)}`);
  const integers = at.columns.filter((c) => c.type === 'integer').map((c) => c.name);
  const rows = await db.query<StoredRow>(
    `SELECT _row_id${list.length ? `, ${list.join(', ')}` : ''} FROM ${quoteIdentifier(at.schema)}.${quoteIdentifier(at.table)}
     WHERE _row_id > $1 ORDER BY _row_id LIMIT $2`,
    [afterRowId, limit],
  );
  for (const row of rows) {
    row._row_id = Number(row._row_id);
    for (const name of integers) row[name] = outputInteger(row[name] as string | null);
  }
  return rows;
}

/** Every row, a batch at a time: memory stays at one batch however large the table is. */
export async function* scanRows(db: Queryable, at: TablePosition, batch = 5000): AsyncGenerator<StoredRow[]> {
  for (let after = 0; ; ) {
    const rows = await readRows(db, at, after, batch);
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < batch) return;
    after = rows[rows.length - 1]._row_id;
  }
}
