-- The request headers each attempt sent (signatures included), so a delivery's history shows the
-- request as the receiver got it. NULL for attempts made before this column and for lost attempts.
ALTER TABLE webhook_attempts ADD COLUMN request_headers jsonb;
