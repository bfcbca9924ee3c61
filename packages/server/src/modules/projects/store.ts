import type { Queryable } from '../../db/connect.js';
import { selectPage } from '../../db/list.js';
import { updateOwnedRow } from '../../db/update.js';
import type { PageWindow } from '../../platform/pagination.js';
import type { CreateProject, Project, UpdateProject } from './schema.js';
import { isoTimestamp } from '../../db/timestamps.js';

interface ProjectRow {
  id: string;
  name: string;
  area: string | null;
  description: string | null;
  created_at: Date;
  updated_at: Date;
}

const toProject = (row: ProjectRow): Project => ({
  id: row.id,
  name: row.name,
  area: row.area,
  description: row.description,
  createdAt: isoTimestamp(row.created_at),
  updatedAt: isoTimestamp(row.updated_at),
});

export async function insertProject(db: Queryable, orgId: string, id: string, input: CreateProject, at: Date): Promise<Project> {
  const [row] = await db.query<ProjectRow>(
    `INSERT INTO projects (id, org_id, name, area, description, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING *`,
    [id, orgId, input.name, input.area ?? null, input.description ?? null, at],
  );
  return toProject(row);
}

/** `lockForShare` keeps the project from being deleted until the caller's transaction ends. */
export async function findProject(db: Queryable, orgId: string, id: string, lockForShare = false): Promise<Project | undefined> {
  const [row] = await db.query<ProjectRow>(
    `SELECT * FROM projects WHERE org_id = $1 AND id = $2${lockForShare ? ' FOR SHARE' : ''}`,
    [orgId, id],
  );
  return row ? toProject(row) : undefined;
}

/** The organization's projects among `ids`; another organization's ids are simply absent. */
export async function findProjects(db: Queryable, orgId: string, ids: readonly string[]): Promise<Project[]> {
  const rows = await db.query<ProjectRow>('SELECT * FROM projects WHERE org_id = $1 AND id = ANY ($2::text[])', [orgId, ids]);
  return rows.map(toProject);
}

export async function listProjects(db: Queryable, orgId: string, window: PageWindow): Promise<Project[]> {
  return (await selectPage<ProjectRow>(db, { from: 'projects', orgId, window })).map(toProject);
}

export async function updateProject(
  db: Queryable,
  orgId: string,
  id: string,
  changes: UpdateProject,
  at: Date,
): Promise<Project | undefined> {
  const row = await updateOwnedRow<ProjectRow>(db, 'projects', orgId, id, { ...changes, updated_at: at });
  return row ? toProject(row) : undefined;
}

export async function deleteProject(db: Queryable, orgId: string, id: string): Promise<Project | undefined> {
  const [row] = await db.query<ProjectRow>(`DELETE FROM projects WHERE org_id = $1 AND id = $2 RETURNING *`, [orgId, id]);
  return row ? toProject(row) : undefined;
}
