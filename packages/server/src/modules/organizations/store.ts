import type { Queryable } from '../../db/connect.js';
import type { Plan } from '../../platform/plans.js';
import { isoTimestamp } from '../../db/timestamps.js';

export interface Organization {
  id: string;
  name: string;
  plan: Plan;
  rateLimitPerMinute: number | null;
  createdAt: string;
  updatedAt: string;
}

interface OrganizationRow {
  id: string;
  name: string;
  plan: Plan;
  rate_limit_per_minute: number | null;
  created_at: Date;
  updated_at: Date;
}

const toOrganization = (row: OrganizationRow): Organization => ({
  id: row.id,
  name: row.name,
  plan: row.plan,
  rateLimitPerMinute: row.rate_limit_per_minute,
  createdAt: isoTimestamp(row.created_at),
  updatedAt: isoTimestamp(row.updated_at),
});

export async function insertOrganization(
  db: Queryable,
  org: { id: string; name: string; plan: Plan; at: Date },
): Promise<Organization> {
  const [row] = await db.query<OrganizationRow>(
    `INSERT INTO organizations (id, name, plan, created_at, updated_at) VALUES ($1, $2, $3, $4, $4) RETURNING *`,
    [org.id, org.name, org.plan, org.at],
  );
  return toOrganization(row);
}

export async function findOrganization(db: Queryable, id: string, forUpdate = false): Promise<Organization | undefined> {
  const [row] = await db.query<OrganizationRow>(
    `SELECT * FROM organizations WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`,
    [id],
  );
  return row ? toOrganization(row) : undefined;
}

export async function updateOrganization(
  db: Queryable,
  id: string,
  changes: { plan?: Plan; rateLimitPerMinute?: number | null; at: Date },
): Promise<Organization | undefined> {
  const [row] = await db.query<OrganizationRow>(
    `UPDATE organizations
        SET plan = COALESCE($2, plan),
            rate_limit_per_minute = CASE WHEN $3 THEN $4::integer ELSE rate_limit_per_minute END,
            updated_at = $5
      WHERE id = $1
      RETURNING *`,
    [id, changes.plan ?? null, changes.rateLimitPerMinute !== undefined, changes.rateLimitPerMinute ?? null, changes.at],
  );
  return row ? toOrganization(row) : undefined;
}

/** Every organization, oldest first (the operator's `vigil org list`). */
export async function listAllOrganizations(db: Queryable): Promise<Organization[]> {
  const rows = await db.query<OrganizationRow>(`SELECT * FROM organizations ORDER BY created_at, id`);
  return rows.map(toOrganization);
}
