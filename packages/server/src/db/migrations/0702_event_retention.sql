-- The retention sweep (retention.ts) removes events past the period that no delivery refers to:
-- it finds them by age, and checks (as does every delete's ON DELETE CASCADE) for deliveries by
-- event, which without an index would scan every delivery once per event.
CREATE INDEX events_created_at ON events (created_at);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);
