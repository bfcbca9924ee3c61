import type { Queryable } from '../../db/connect.js';
import type { Plan } from '../../platform/plans.js';
import type { Role, UserStatus } from '../users/schema.js';

/** A user who may sign in with a password: what a sign-in attempt is checked against. */
export interface SignInCandidate {
  userId: string;
  orgId: string;
  orgName: string;
  passwordHash: string;
}

export async function findSignInCandidates(db: Queryable, email: string): Promise<SignInCandidate[]> {
  const rows = await db.query<{ id: string; org_id: string; org_name: string; password_hash: string }>(
    `SELECT u.id, u.org_id, o.name AS org_name, u.password_hash
       FROM users u JOIN organizations o ON o.id = u.org_id
      WHERE lower(u.email) = lower($1) AND u.status = 'active' AND u.password_hash IS NOT NULL
      ORDER BY u.id`,
    [email],
  );
  return rows.map((row) => ({ userId: row.id, orgId: row.org_id, orgName: row.org_name, passwordHash: row.password_hash }));
}

export async function findUsersByEmail(
  db: Queryable,
  email: string,
  orgId?: string,
): Promise<{ userId: string; orgId: string; status: UserStatus }[]> {
  const rows = await db.query<{ id: string; org_id: string; status: UserStatus }>(
    `SELECT id, org_id, status FROM users WHERE lower(email) = lower($1) AND ($2::text IS NULL OR org_id = $2) ORDER BY id`,
    [email, orgId ?? null],
  );
  return rows.map((row) => ({ userId: row.id, orgId: row.org_id, status: row.status }));
}

export async function setPassword(db: Queryable, orgId: string, userId: string, passwordHash: string, at: Date): Promise<void> {
  await db.query(`UPDATE users SET password_hash = $3, updated_at = $4 WHERE org_id = $1 AND id = $2`, [orgId, userId, passwordHash, at]);
}

export async function insertPasswordLink(
  db: Queryable,
  link: { id: string; orgId: string; userId: string; tokenHash: string; at: Date; expiresAt: Date },
): Promise<void> {
  // A new link replaces every earlier one of the same user: only the latest link works.
  await db.query(`UPDATE password_links SET used_at = $2 WHERE user_id = $1 AND used_at IS NULL`, [link.userId, link.at]);
  await db.query(
    `INSERT INTO password_links (id, org_id, user_id, token_hash, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`,
    [link.id, link.orgId, link.userId, link.tokenHash, link.at, link.expiresAt],
  );
}

export interface PasswordLink {
  id: string;
  orgId: string;
  orgName: string;
  userId: string;
  email: string;
  userStatus: UserStatus;
  expiresAt: Date;
  usedAt: Date | null;
}

export async function findPasswordLink(db: Queryable, tokenHash: string, forUpdate = false): Promise<PasswordLink | undefined> {
  const [row] = await db.query<{
    id: string;
    org_id: string;
    org_name: string;
    user_id: string;
    email: string;
    status: UserStatus;
    expires_at: Date;
    used_at: Date | null;
  }>(
    `SELECT l.id, l.org_id, o.name AS org_name, l.user_id, u.email, u.status, l.expires_at, l.used_at
       FROM password_links l JOIN users u ON u.id = l.user_id JOIN organizations o ON o.id = l.org_id
      WHERE l.token_hash = $1${forUpdate ? ' FOR UPDATE OF l' : ''}`,
    [tokenHash],
  );
  if (!row) return undefined;
  return {
    id: row.id,
    orgId: row.org_id,
    orgName: row.org_name,
    userId: row.user_id,
    email: row.email,
    userStatus: row.status,
    expiresAt: row.expires_at,
    usedAt: row.used_at,
  };
}

export async function markPasswordLinkUsed(db: Queryable, id: string, at: Date): Promise<void> {
  await db.query(`UPDATE password_links SET used_at = $2 WHERE id = $1`, [id, at]);
}

export async function insertSession(
  db: Queryable,
  session: { id: string; orgId: string; userId: string; tokenHash: string; at: Date; expiresAt: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO sessions (id, org_id, user_id, token_hash, created_at, refreshed_at, expires_at) VALUES ($1, $2, $3, $4, $5, $5, $6)`,
    [session.id, session.orgId, session.userId, session.tokenHash, session.at, session.expiresAt],
  );
}

/** What one request's session grants: its user, with the role and status as they are now. */
export interface SessionGrant {
  sessionId: string;
  orgId: string;
  orgName: string;
  plan: Plan;
  userId: string;
  email: string;
  name: string | null;
  role: Role;
  refreshedAt: Date;
}

/** A live session: not revoked, not expired, and its user still active. */
export async function findLiveSession(db: Queryable, tokenHash: string, now: Date): Promise<SessionGrant | undefined> {
  const [row] = await db.query<{
    id: string;
    org_id: string;
    org_name: string;
    plan: Plan;
    user_id: string;
    email: string;
    name: string | null;
    role: Role;
    refreshed_at: Date;
  }>(
    `SELECT s.id, s.org_id, o.name AS org_name, o.plan, s.user_id, u.email, u.name, u.role, s.refreshed_at
       FROM sessions s JOIN users u ON u.id = s.user_id JOIN organizations o ON o.id = s.org_id
      WHERE s.token_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > $2 AND u.status = 'active'`,
    [tokenHash, now],
  );
  if (!row) return undefined;
  return {
    sessionId: row.id,
    orgId: row.org_id,
    orgName: row.org_name,
    plan: row.plan,
    userId: row.user_id,
    email: row.email,
    name: row.name,
    role: row.role,
    refreshedAt: row.refreshed_at,
  };
}

export async function extendSession(db: Queryable, sessionId: string, at: Date, expiresAt: Date): Promise<void> {
  await db.query(`UPDATE sessions SET refreshed_at = $2, expires_at = $3 WHERE id = $1 AND revoked_at IS NULL`, [sessionId, at, expiresAt]);
}

export async function revokeSession(db: Queryable, sessionId: string, at: Date): Promise<void> {
  await db.query(`UPDATE sessions SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL`, [sessionId, at]);
}

export async function revokeUserSessions(db: Queryable, orgId: string, userId: string, at: Date): Promise<void> {
  await db.query(`UPDATE sessions SET revoked_at = $3 WHERE org_id = $1 AND user_id = $2 AND revoked_at IS NULL`, [orgId, userId, at]);
}
