import type { Queryable } from '../../db/connect.js';
import { selectPage } from '../../db/list.js';
import type { PageWindow } from '../../platform/pagination.js';
import type { Plan } from '../../platform/plans.js';
import type { ApiKey } from './schema.js';
import { isoOrNull, isoTimestamp } from '../../db/timestamps.js';

interface ApiKeyRow {
  id: string;
  org_id: string;
  name: string;
  display_prefix: string;
  created_by: string | null;
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

const toApiKey = (row: ApiKeyRow): ApiKey => ({
  id: row.id,
  name: row.name,
  prefix: row.display_prefix,
  createdBy: row.created_by,
  createdAt: isoTimestamp(row.created_at),
  expiresAt: isoOrNull(row.expires_at),
  lastUsedAt: isoOrNull(row.last_used_at),
  revokedAt: isoOrNull(row.revoked_at),
});

export interface NewApiKey {
  id: string;
  orgId: string;
  name: string;
  keyHash: string;
  displayPrefix: string;
  createdBy: string | null;
  createdAt: Date;
  expiresAt: Date | null;
}

export async function insertApiKey(db: Queryable, key: NewApiKey): Promise<ApiKey> {
  const [row] = await db.query<ApiKeyRow>(
    `INSERT INTO api_keys (id, org_id, name, key_hash, display_prefix, created_by, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
    [key.id, key.orgId, key.name, key.keyHash, key.displayPrefix, key.createdBy, key.createdAt, key.expiresAt],
  );
  return toApiKey(row);
}

export async function revokeApiKey(db: Queryable, id: string, at: Date): Promise<{ orgId: string; key: ApiKey } | undefined> {
  const [row] = await db.query<ApiKeyRow>(
    `UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING *`,
    [id, at],
  );
  return row ? { orgId: row.org_id, key: toApiKey(row) } : undefined;
}

export async function listApiKeys(db: Queryable, orgId: string, window: PageWindow): Promise<ApiKey[]> {
  const rows = await selectPage<ApiKeyRow>(db, { from: 'api_keys', orgId, window });
  return rows.map(toApiKey);
}

export async function findApiKey(db: Queryable, id: string): Promise<{ orgId: string; key: ApiKey } | undefined> {
  const [row] = await db.query<ApiKeyRow>(`SELECT * FROM api_keys WHERE id = $1`, [id]);
  return row ? { orgId: row.org_id, key: toApiKey(row) } : undefined;
}

/** What authentication needs to know about a presented key, in one round trip. */
export interface KeyGrant {
  keyId: string;
  keyHash: string;
  orgId: string;
  plan: Plan;
  rateLimitPerMinute: number | null;
  expiresAt: number | null;
  revoked: boolean;
}

export async function findGrantByHash(db: Queryable, keyHash: string): Promise<KeyGrant | undefined> {
  const [row] = await db.query<{
    id: string;
    org_id: string;
    plan: Plan;
    rate_limit_per_minute: number | null;
    expires_at: Date | null;
    revoked_at: Date | null;
  }>(
    `SELECT k.id, k.org_id, k.expires_at, k.revoked_at, o.plan, o.rate_limit_per_minute
       FROM api_keys k JOIN organizations o ON o.id = k.org_id
      WHERE k.key_hash = $1`,
    [keyHash],
  );
  if (!row) return undefined;
  return {
    keyId: row.id,
    keyHash,
    orgId: row.org_id,
    plan: row.plan,
    rateLimitPerMinute: row.rate_limit_per_minute,
    expiresAt: row.expires_at ? row.expires_at.getTime() : null,
    revoked: row.revoked_at !== null,
  };
}

export async function recordLastUsed(db: Queryable, lastUsed: Map<string, Date>): Promise<void> {
  if (lastUsed.size === 0) return;
  await db.query(
    `UPDATE api_keys k SET last_used_at = GREATEST(COALESCE(k.last_used_at, u.at), u.at)
       FROM (SELECT unnest($1::text[]) AS id, unnest($2::timestamptz[]) AS at) u
      WHERE k.id = u.id`,
    [[...lastUsed.keys()], [...lastUsed.values()]],
  );
}

/** Every key of an organization, revoked ones included, oldest first (the operator's `vigil key list`). */
export async function listKeysOfOrganization(db: Queryable, orgId: string): Promise<ApiKey[]> {
  const rows = await db.query<ApiKeyRow>(`SELECT * FROM api_keys WHERE org_id = $1 ORDER BY created_at, id`, [orgId]);
  return rows.map(toApiKey);
}
