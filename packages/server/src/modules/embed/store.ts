import type { Queryable } from '../../db/connect.js';
import { selectPage } from '../../db/list.js';
import type { PageWindow } from '../../platform/pagination.js';
import type { EmbedSettings, EmbedToken, Theme } from './schema.js';
import { isoOrNull, isoTimestamp } from '../../db/timestamps.js';

interface EmbedTokenRow {
  id: string;
  org_id: string;
  dashboard_id: string;
  theme: Theme | null;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
}

const toEmbedToken = (row: EmbedTokenRow): EmbedToken => ({
  id: row.id,
  dashboardId: row.dashboard_id,
  theme: row.theme,
  createdAt: isoTimestamp(row.created_at),
  expiresAt: isoTimestamp(row.expires_at),
  revokedAt: isoOrNull(row.revoked_at),
});

export interface NewEmbedToken {
  id: string;
  dashboardId: string;
  theme: Theme | null;
  expiresAt: Date;
}

export async function insertEmbedToken(db: Queryable, orgId: string, input: NewEmbedToken, at: Date): Promise<EmbedToken> {
  const [row] = await db.query<EmbedTokenRow>(
    `INSERT INTO embed_tokens (id, org_id, dashboard_id, theme, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
    [input.id, orgId, input.dashboardId, input.theme, at, input.expiresAt],
  );
  return toEmbedToken(row);
}

export async function listEmbedTokens(db: Queryable, orgId: string, dashboardId: string | undefined, window: PageWindow): Promise<EmbedToken[]> {
  return (await selectPage<EmbedTokenRow>(db, { from: 'embed_tokens', orgId, where: { dashboard_id: dashboardId }, window })).map(toEmbedToken);
}

/** Revoking twice keeps the first time; undefined when the organization has no such token. */
export async function revokeEmbedToken(db: Queryable, orgId: string, id: string, at: Date): Promise<EmbedToken | undefined> {
  const [row] = await db.query<EmbedTokenRow>(
    `UPDATE embed_tokens SET revoked_at = coalesce(revoked_at, $3) WHERE org_id = $1 AND id = $2 RETURNING *`,
    [orgId, id, at],
  );
  return row ? toEmbedToken(row) : undefined;
}

/** What the embed API checks beyond the signature: the token still exists (its dashboard too) and is not revoked. */
export interface EmbedGrant {
  orgId: string;
  dashboardId: string;
  revoked: boolean;
}

export async function findEmbedGrant(db: Queryable, tokenId: string): Promise<EmbedGrant | undefined> {
  const [row] = await db.query<EmbedTokenRow>('SELECT * FROM embed_tokens WHERE id = $1', [tokenId]);
  return row ? { orgId: row.org_id, dashboardId: row.dashboard_id, revoked: row.revoked_at !== null } : undefined;
}

export async function findEmbedSettings(db: Queryable, orgId: string): Promise<EmbedSettings> {
  const [row] = await db.query<{ allowed_origins: string[]; updated_at: Date }>(
    'SELECT allowed_origins, updated_at FROM embed_settings WHERE org_id = $1',
    [orgId],
  );
  return { allowedOrigins: row?.allowed_origins ?? [], updatedAt: row ? isoTimestamp(row.updated_at) : null };
}

export async function saveEmbedSettings(db: Queryable, orgId: string, allowedOrigins: string[], at: Date): Promise<EmbedSettings> {
  const [row] = await db.query<{ allowed_origins: string[]; updated_at: Date }>(
    `INSERT INTO embed_settings (org_id, allowed_origins, updated_at) VALUES ($1, $2, $3)
     ON CONFLICT (org_id) DO UPDATE SET allowed_origins = EXCLUDED.allowed_origins, updated_at = EXCLUDED.updated_at
     RETURNING allowed_origins, updated_at`,
    [orgId, allowedOrigins, at],
  );
  return { allowedOrigins: row.allowed_origins, updatedAt: isoTimestamp(row.updated_at) };
}
