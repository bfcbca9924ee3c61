-- Who made a change: the user of a console session, or the API key, that caused the event
-- (NULL for changes the service makes by itself and for events recorded before this column).
-- An alert's page shows its timeline from these events; the index finds an alert's events by
-- the alert id inside the payload without reading the organization's whole outbox.
ALTER TABLE events ADD COLUMN actor_id text;
CREATE INDEX events_alert_subject ON events (org_id, (data->>'id'), id) WHERE type LIKE 'alert.%';
