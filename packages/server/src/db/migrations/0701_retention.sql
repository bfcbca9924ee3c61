-- The retention sweep (retention.ts) finds finished deliveries by when they last changed; the
-- index holds only rows with nothing due, so the queue's own writes to pending rows skip it.
CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (updated_at) WHERE next_attempt_at IS NULL;
