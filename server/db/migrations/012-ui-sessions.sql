-- The headless server's UI link (CONTRACT §2): a single-use, short-lived token exchanged on the first page
-- load for a session key that expires after 12 hours without use and can be revoked. Only SHA-256 digests
-- are stored. `npm run keys -- ui-link` mints tokens from another process, hence a table, not memory.
CREATE TABLE ui_tokens (
  token_hash TEXT PRIMARY KEY,
  created_at INTEGER NOT NULL,       -- epoch ms
  expires_at INTEGER NOT NULL        -- epoch ms; the token is refused from then on
) WITHOUT ROWID;

CREATE TABLE ui_sessions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  key_hash TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  last_used_at INTEGER NOT NULL,     -- the session expires 12 hours after this
  revoked_at INTEGER
);
