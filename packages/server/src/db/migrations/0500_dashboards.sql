-- Dashboards: a project's ordered widgets, each with its query (docs/dashboards.md). The widgets
-- live in one jsonb array: they are always read and written with their dashboard, in order.
CREATE TABLE dashboards (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name text NOT NULL,
  description text,
  widgets jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX dashboards_org_id ON dashboards (org_id, id);
CREATE INDEX dashboards_org_project ON dashboards (org_id, project_id, id);

-- Embed tokens are signed JWTs; the row (keyed by the token's jti) is what lists and revokes them.
-- The token itself is never stored.
CREATE TABLE embed_tokens (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  dashboard_id text NOT NULL REFERENCES dashboards (id) ON DELETE CASCADE,
  theme text,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX embed_tokens_org_id ON embed_tokens (org_id, id);

-- The origins allowed to embed an organization's dashboards; no row (or an empty list) = any origin.
CREATE TABLE embed_settings (
  org_id text PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
  allowed_origins text[] NOT NULL,
  updated_at timestamptz NOT NULL
);
