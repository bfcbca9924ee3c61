-- Database connections an organization imports from. The password is stored sealed
-- (AES-256-GCM under VIGIL_SECRET_KEY, see platform/crypto.ts) and never leaves the server.
CREATE TABLE db_connections (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL,
  db_type text NOT NULL,
  host text NOT NULL,
  port integer NOT NULL,
  database text NOT NULL,
  username text NOT NULL,
  password_sealed text NOT NULL,
  ssl_mode text NOT NULL,
  status text NOT NULL,
  last_error text,
  last_checked_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX db_connections_org_id ON db_connections (org_id, id);

-- One row per dataset; its rows live in the table "table_name" of the project's own schema
-- (platform/project-schema.ts), typed from the columns listed here.
CREATE TABLE datasets (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name text NOT NULL,
  table_name text NOT NULL,
  status text NOT NULL,
  source text NOT NULL,
  connection_id text REFERENCES db_connections (id) ON DELETE SET NULL,
  row_count bigint NOT NULL DEFAULT 0,
  size_bytes bigint NOT NULL DEFAULT 0,
  columns jsonb NOT NULL DEFAULT '[]',
  error text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX datasets_project_table ON datasets (project_id, table_name);
CREATE INDEX datasets_org_id ON datasets (org_id, id);
CREATE INDEX datasets_org_project ON datasets (org_id, project_id, id);

-- Imports waiting for or held by a worker; the row goes when the import ends (the dataset keeps the outcome).
CREATE TABLE dataset_imports (
  dataset_id text PRIMARY KEY REFERENCES datasets (id) ON DELETE CASCADE,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  connection_id text REFERENCES db_connections (id) ON DELETE SET NULL,
  source_table text,
  source_query text,
  state text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  lease_until timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX dataset_imports_due ON dataset_imports (state, created_at);

CREATE TABLE exports (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  resource text NOT NULL,
  format text NOT NULL,
  project_id text,
  dataset_id text,
  filters jsonb NOT NULL DEFAULT '{}',
  status text NOT NULL,
  error text,
  file_name text,
  size_bytes bigint,
  row_count bigint,
  attempts integer NOT NULL DEFAULT 0,
  lease_until timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  completed_at timestamptz,
  expires_at timestamptz,
  file_removed_at timestamptz
);
CREATE INDEX exports_org_id ON exports (org_id, id);
CREATE INDEX exports_due ON exports (status, created_at);
CREATE INDEX exports_expiry ON exports (expires_at) WHERE file_removed_at IS NULL;
