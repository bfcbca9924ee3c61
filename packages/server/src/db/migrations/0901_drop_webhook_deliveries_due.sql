-- A search for due deliveries reads each webhook from its own end of the queue
-- (webhook_deliveries_due_by_webhook, webhooks/queue.ts): an index of every due row in time order
-- let the planner walk one webhook's backlog to find another's rows, and cost every queued
-- delivery and every retry scheduled one more index entry.
DROP INDEX webhook_deliveries_due;
