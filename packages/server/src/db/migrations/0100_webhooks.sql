CREATE TABLE webhooks (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL,
  url text NOT NULL,
  events text[] NOT NULL,
  is_active boolean NOT NULL,
  disabled_reason text,
  -- AES-256-GCM under VIGIL_SECRET_KEY (platform/crypto.ts); the previous secret signs beside the
  -- current one until previous_secret_expires_at, so receivers can rotate without downtime.
  secret_sealed text NOT NULL,
  previous_secret_sealed text,
  previous_secret_expires_at timestamptz,
  -- Start of the first failed attempt since the last successful one; null while deliveries succeed.
  failing_since timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX webhooks_org_id ON webhooks (org_id, id);
CREATE INDEX webhooks_failing ON webhooks (failing_since) WHERE is_active AND failing_since IS NOT NULL;

-- The delivery queue: a row is due when next_attempt_at has passed and it holds no live lease
-- (leased_until, 0101), so an attempt lost with its worker becomes due again when the lease ends.
CREATE TABLE webhook_deliveries (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  webhook_id text NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event_id text NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  event text NOT NULL,
  status text NOT NULL,
  attempt_count integer NOT NULL DEFAULT 0,
  scheduled_attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  next_trigger text,
  lease_token text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (event_id, webhook_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE next_attempt_at IS NOT NULL;
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, id);
CREATE INDEX webhook_deliveries_failed ON webhook_deliveries (webhook_id, created_at) WHERE status = 'failed';

CREATE TABLE webhook_attempts (
  delivery_id text NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  number integer NOT NULL,
  trigger text NOT NULL,
  started_at timestamptz NOT NULL,
  duration_ms integer NOT NULL,
  http_status integer,
  error text,
  response_body text,
  PRIMARY KEY (delivery_id, number)
);
