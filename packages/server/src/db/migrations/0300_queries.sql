-- AI question history: one row per finished question (a provider failure leaves none).
CREATE TABLE queries (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  question text NOT NULL,
  answer text NOT NULL,
  sql text,
  rows jsonb,
  row_count integer NOT NULL DEFAULT 0,
  tokens integer NOT NULL,
  model text NOT NULL,
  status text NOT NULL,
  duration_ms integer NOT NULL,
  api_key_id text REFERENCES api_keys (id) ON DELETE SET NULL,
  user_id text REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX queries_org_id ON queries (org_id, id);
CREATE INDEX queries_org_project ON queries (org_id, project_id, id);

-- Usage counted as work happens, flushed in batches by each process (modules/usage/meter.ts).
CREATE TABLE usage_daily (
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  day date NOT NULL,
  api_requests bigint NOT NULL DEFAULT 0,
  ai_questions bigint NOT NULL DEFAULT 0,
  tokens bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (org_id, day)
);
