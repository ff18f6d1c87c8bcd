-- API keys (CONTRACT §2): only the SHA-256 digest of a key is stored.
CREATE TABLE api_keys (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  key_hash TEXT NOT NULL UNIQUE,
  prefix TEXT NOT NULL,
  permissions TEXT NOT NULL,          -- comma-separated permission names
  projects TEXT,                      -- comma-separated project ids limiting optout_administrate; NULL = all
  created_at INTEGER NOT NULL,        -- epoch ms
  last_used_at INTEGER,
  revoked_at INTEGER
);

-- Installation settings as JSON values (unsubscribe page texts, public URL, ...).
CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
