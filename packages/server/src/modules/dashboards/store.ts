import type { Queryable } from '../../db/connect.js';
import { selectPage } from '../../db/list.js';
import { updateOwnedRow } from '../../db/update.js';
import type { PageWindow } from '../../platform/pagination.js';
import type { Dashboard, Widget } from './schema.js';
import { isoTimestamp } from '../../db/timestamps.js';

interface DashboardRow {
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  widgets: Widget[];
  created_at: Date;
  updated_at: Date;
}

const toDashboard = (row: DashboardRow): Dashboard => ({
  id: row.id,
  projectId: row.project_id,
  name: row.name,
  description: row.description,
  widgets: row.widgets,
  createdAt: isoTimestamp(row.created_at),
  updatedAt: isoTimestamp(row.updated_at),
});

export interface NewDashboard {
  id: string;
  projectId: string;
  name: string;
  description: string | null;
  widgets: Widget[];
}

export async function insertDashboard(db: Queryable, orgId: string, input: NewDashboard, at: Date): Promise<Dashboard> {
  const [row] = await db.query<DashboardRow>(
    `INSERT INTO dashboards (id, org_id, project_id, name, description, widgets, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING *`,
    [input.id, orgId, input.projectId, input.name, input.description, JSON.stringify(input.widgets), at],
  );
  return toDashboard(row);
}

/** `forUpdate` holds the row until the caller's transaction ends (widgets are read, changed and written back). */
export async function findDashboard(db: Queryable, orgId: string, id: string, forUpdate = false): Promise<Dashboard | undefined> {
  const [row] = await db.query<DashboardRow>(
    `SELECT * FROM dashboards WHERE org_id = $1 AND id = $2${forUpdate ? ' FOR UPDATE' : ''}`,
    [orgId, id],
  );
  return row ? toDashboard(row) : undefined;
}

export async function listDashboards(db: Queryable, orgId: string, projectId: string | undefined, window: PageWindow): Promise<Dashboard[]> {
  return (await selectPage<DashboardRow>(db, { from: 'dashboards', orgId, where: { project_id: projectId }, window })).map(toDashboard);
}

export interface DashboardChanges {
  name?: string;
  description?: string | null;
  widgets?: Widget[];
}

export async function updateDashboard(db: Queryable, orgId: string, id: string, changes: DashboardChanges, at: Date): Promise<Dashboard | undefined> {
  const row = await updateOwnedRow<DashboardRow>(db, 'dashboards', orgId, id, {
    name: changes.name,
    description: changes.description,
    widgets: changes.widgets === undefined ? undefined : JSON.stringify(changes.widgets),
    updated_at: at,
  });
  return row ? toDashboard(row) : undefined;
}

export async function deleteDashboard(db: Queryable, orgId: string, id: string): Promise<Dashboard | undefined> {
  const [row] = await db.query<DashboardRow>('DELETE FROM dashboards WHERE org_id = $1 AND id = $2 RETURNING *', [orgId, id]);
  return row ? toDashboard(row) : undefined;
}
