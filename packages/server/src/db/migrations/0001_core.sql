CREATE TABLE organizations (
  id text PRIMARY KEY,
  name text NOT NULL,
  plan text NOT NULL,
  rate_limit_per_minute integer,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

CREATE TABLE users (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  email text NOT NULL,
  name text,
  role text NOT NULL,
  status text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX users_org_email ON users (org_id, lower(email));
CREATE INDEX users_org_id ON users (org_id, id);

CREATE TABLE api_keys (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL,
  key_hash text NOT NULL UNIQUE,
  display_prefix text NOT NULL,
  created_by text REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz,
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX api_keys_org_id ON api_keys (org_id, id);

CREATE TABLE projects (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL,
  area text,
  description text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX projects_org_id ON projects (org_id, id);

CREATE TABLE alerts (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  title text NOT NULL,
  description text,
  severity text NOT NULL,
  status text NOT NULL,
  area text,
  value text,
  threshold text,
  assignee_id text REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  acknowledged_at timestamptz,
  resolved_at timestamptz
);
CREATE INDEX alerts_org_id ON alerts (org_id, id);
CREATE INDEX alerts_org_project ON alerts (org_id, project_id, id);
CREATE INDEX alerts_org_status ON alerts (org_id, status, id);

-- The outbox: every change writes its event here in the transaction that makes the change.
CREATE TABLE events (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  type text NOT NULL,
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX events_org_id ON events (org_id, id);
