import type { Queryable } from '../../db/connect.js';
import { selectPage } from '../../db/list.js';
import { updateOwnedRow } from '../../db/update.js';
import type { PageWindow } from '../../platform/pagination.js';
import type { Role, User, UserFilters, UserStatus } from './schema.js';
import { isoTimestamp } from '../../db/timestamps.js';

interface UserRow {
  id: string;
  org_id: string;
  email: string;
  name: string | null;
  role: Role;
  status: UserStatus;
  created_at: Date;
  updated_at: Date;
}

const toUser = (row: UserRow): User => ({
  id: row.id,
  email: row.email,
  name: row.name,
  role: row.role,
  status: row.status,
  createdAt: isoTimestamp(row.created_at),
  updatedAt: isoTimestamp(row.updated_at),
});

export interface NewUser {
  id: string;
  orgId: string;
  email: string;
  name: string | null;
  role: Role;
  status: UserStatus;
  at: Date;
}

/** Returns undefined when the organization already has a user with that email. */
export async function insertUser(db: Queryable, user: NewUser): Promise<User | undefined> {
  const [row] = await db.query<UserRow>(
    `INSERT INTO users (id, org_id, email, name, role, status, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
     ON CONFLICT (org_id, lower(email)) DO NOTHING
     RETURNING *`,
    [user.id, user.orgId, user.email, user.name, user.role, user.status, user.at],
  );
  return row ? toUser(row) : undefined;
}

export async function findUser(db: Queryable, orgId: string, id: string, forUpdate = false): Promise<User | undefined> {
  const [row] = await db.query<UserRow>(
    `SELECT * FROM users WHERE org_id = $1 AND id = $2${forUpdate ? ' FOR UPDATE' : ''}`,
    [orgId, id],
  );
  return row ? toUser(row) : undefined;
}

/** The organization's users among `ids`; another organization's ids are simply absent. */
export async function findUsers(db: Queryable, orgId: string, ids: readonly string[]): Promise<User[]> {
  const rows = await db.query<UserRow>('SELECT * FROM users WHERE org_id = $1 AND id = ANY ($2::text[])', [orgId, ids]);
  return rows.map(toUser);
}

export async function listUsers(db: Queryable, orgId: string, filters: UserFilters, window: PageWindow): Promise<User[]> {
  const where = { status: filters.status, role: filters.role };
  const rows = await selectPage<UserRow>(db, { from: 'users', orgId, where, window });
  return rows.map(toUser);
}

export async function updateUser(
  db: Queryable,
  orgId: string,
  id: string,
  changes: { role?: Role; name?: string | null; status?: UserStatus; at: Date },
): Promise<User> {
  const { at, ...columns } = changes;
  const row = await updateOwnedRow<UserRow>(db, 'users', orgId, id, { ...columns, updated_at: at });
  return toUser(row!);
}

/**
 * Serialises, per organization, the changes that can take away an active admin: two admins
 * deactivated at once would otherwise each see the other still active. NO KEY UPDATE leaves the
 * organization's other writes (whose foreign keys take KEY SHARE) unblocked.
 */
export async function lockAdminChanges(db: Queryable, orgId: string): Promise<void> {
  await db.query('SELECT 1 FROM organizations WHERE id = $1 FOR NO KEY UPDATE', [orgId]);
}

export async function countActiveAdmins(db: Queryable, orgId: string): Promise<number> {
  const [row] = await db.query<{ count: number }>(
    `SELECT count(*)::int AS count FROM users WHERE org_id = $1 AND role = 'admin' AND status = 'active'`,
    [orgId],
  );
  return row.count;
}
