-- An idempotency key is a 24-hour copy of an answer, written with the change of every POST that
-- sends one. Its organization is the authenticated caller's, so the reference to organizations
-- checked nothing that could fail, and checking it took a lookup per keyed POST. Organizations are
-- never deleted; retention deletes keys past their 24 hours (retention.ts).
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_org_id_fkey;
