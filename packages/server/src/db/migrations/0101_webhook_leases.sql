-- A claim now writes only the lease (columns no index covers), so PostgreSQL can update the row
-- in place (a HOT update) instead of adding an entry to every index; free space left on each page
-- makes room for that. A delivery is due when next_attempt_at has passed and it holds no live lease.
ALTER TABLE webhook_deliveries ADD COLUMN leased_until timestamptz;
ALTER TABLE webhook_deliveries SET (fillfactor = 70);
