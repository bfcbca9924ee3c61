-- An attempt is recorded before its request goes out, so one whose worker dies is not lost: the
-- row holds the worker's lease (lease_token, leased_until) until the outcome is written. Once the
-- lease has ended with no outcome, the attempt is closed as `worker_lost` (webhooks/queue.ts).
ALTER TABLE webhook_attempts ADD COLUMN lease_token text;
ALTER TABLE webhook_attempts ADD COLUMN leased_until timestamptz;
ALTER TABLE webhook_attempts ALTER COLUMN duration_ms DROP NOT NULL;
-- Why a TLS handshake failed (untrusted issuer, name mismatch, expired…), beside error = 'tls'.
ALTER TABLE webhook_attempts ADD COLUMN error_detail text;
CREATE INDEX webhook_attempts_open ON webhook_attempts (leased_until) WHERE lease_token IS NOT NULL;
