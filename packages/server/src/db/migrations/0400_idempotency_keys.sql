-- Idempotency-Key of POST requests (platform/idempotency.ts): the first request's answer, replayed
-- for 24 hours to a repeat with the same key from the same organization.
CREATE TABLE idempotency_keys (
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  key text NOT NULL,
  -- SHA-256 of method, path, query and body: a repeat must be the same request.
  fingerprint text NOT NULL,
  -- The request id running it; null once its answer is stored.
  owner text,
  -- A running request that has not finished by then (its process died) may be run again.
  locked_until timestamptz NOT NULL,
  status integer,
  content_type text,
  body text,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, key)
);
CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at);
