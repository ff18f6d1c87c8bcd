-- People (CONTRACT §15): supervisor accounts with a role, signing in with a name and a password. The password is
-- stored only as a salted scrypt hash; `name_key` (the name lower-cased) makes names unique without regard to case.
CREATE TABLE users (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  name_key TEXT NOT NULL UNIQUE,
  display_name TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('administrator', 'supervisor', 'viewer')),
  password_hash TEXT NOT NULL,        -- scrypt$N$r$p$salt$hash (base64url)
  locked INTEGER NOT NULL DEFAULT 0,  -- 0/1
  created_at INTEGER NOT NULL,        -- epoch ms
  last_login_at INTEGER               -- epoch ms
);

-- A signed-in user's session is a UI session (12 hours idle, revocable, digest only) that names its user;
-- NULL user_id: the UI link's session. Deleting a user ends its sessions.
ALTER TABLE ui_sessions ADD COLUMN user_id INTEGER REFERENCES users (id) ON DELETE CASCADE;
CREATE INDEX ui_sessions_user ON ui_sessions (user_id) WHERE user_id IS NOT NULL;

-- The person behind an audited change made in a user's session (NULL otherwise).
ALTER TABLE audit_log ADD COLUMN actor_user_id INTEGER;

-- Failed sign-ins of the last 15 minutes, per name and per client address (the 429 rule); older rows are pruned.
CREATE TABLE login_failures (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name_key TEXT NOT NULL,
  address TEXT NOT NULL,
  at INTEGER NOT NULL                 -- epoch ms
);
CREATE INDEX login_failures_name ON login_failures (name_key, at);
CREATE INDEX login_failures_address ON login_failures (address, at);
CREATE INDEX login_failures_at ON login_failures (at);
