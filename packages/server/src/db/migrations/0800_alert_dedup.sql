-- Deduplication (DESIGN §3.10): a repeat of an open alert's dedup_key counts an occurrence instead
-- of opening another alert. Only added columns with constant defaults, so processes of the previous
-- version keep inserting alerts during a rolling upgrade (their rows get occurrences 1 and no
-- last_seen_at, which reads as created_at).
ALTER TABLE alerts
  ADD COLUMN dedup_key text,
  ADD COLUMN occurrences integer NOT NULL DEFAULT 1,
  ADD COLUMN last_seen_at timestamptz;

-- At most one open alert per project and key: what INSERT … ON CONFLICT counts repeats against,
-- atomically under any concurrency. A resolved alert leaves it, so the next POST opens a new one.
CREATE UNIQUE INDEX alerts_open_dedup_key ON alerts (project_id, dedup_key)
  WHERE dedup_key IS NOT NULL AND status IN ('active', 'acknowledged');

-- GET /alerts?dedupKey= (open and resolved alike), newest first.
CREATE INDEX alerts_org_dedup_key ON alerts (org_id, dedup_key, id) WHERE dedup_key IS NOT NULL;
