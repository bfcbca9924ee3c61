import { columnName } from './columns.js';
import type { Queryable } from './connect.js';

/**
 * Updates the given columns of one organization's row and returns the new row, or undefined when
 * the organization has no such row. Column names come from code; undefined values are left as
 * they are, null clears a column.
 */
export async function updateOwnedRow<Row>(
  db: Queryable,
  table: string,
  orgId: string,
  id: string,
  columns: Record<string, unknown>,
): Promise<Row | undefined> {
  const params: unknown[] = [orgId, id];
  const assignments: string[] = [];
  for (const [column, value] of Object.entries(columns)) {
    if (value === undefined) continue;
    params.push(value);
    assignments.push(`${columnName(column)} = $${params.length}`);
  }
  const [row] = await db.query<Row>(
    `UPDATE ${table} SET ${assignments.join(', ')} WHERE org_id = $1 AND id = $2 RETURNING *`,
    params,
  );
  return row;
}
