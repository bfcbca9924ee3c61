-- People sign in to the console: a password (argon2id, PHC string) per user.
ALTER TABLE users ADD COLUMN password_hash text;

-- One-time links to set a password (an invitation, or a reset). Only the SHA-256 of the token is kept.
CREATE TABLE password_links (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX password_links_user ON password_links (user_id);

-- Console sessions. Only the SHA-256 of the cookie's token is kept; revoked_at ends one at once.
CREATE TABLE sessions (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL,
  refreshed_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX sessions_user ON sessions (user_id);

-- Failed sign-ins, per account ("email:<address>") and per client address ("ip:<address>"), for throttling.
CREATE TABLE sign_in_failures (
  scope text NOT NULL,
  at timestamptz NOT NULL
);
CREATE INDEX sign_in_failures_scope ON sign_in_failures (scope, at);
