-- A worker tops up the webhooks it already sends for from each one's own oldest due rows
-- (webhooks/queue.ts, refill): without this index, finding them meant passing over the due rows of
-- every webhook ahead of them, a whole backlog per claim.
CREATE INDEX webhook_deliveries_due_by_webhook ON webhook_deliveries (webhook_id, next_attempt_at) WHERE next_attempt_at IS NOT NULL;
