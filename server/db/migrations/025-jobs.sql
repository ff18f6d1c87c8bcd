-- Jobs any server answers (docs/cati-api.md#scrubs, docs/cati-api.md#blacklist-imports, docs/deployment.md):
-- the state of every scrub and blacklist file import, and a scrub's result files in chunks, so every server
-- on the database reads the same job. `server_id` names the server running it, `updated_at` its heartbeat
-- (epoch ms): a running job whose heartbeat stops is failed by whichever server sees it.
CREATE TABLE jobs (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,                 -- phone | email | blacklist
  owner TEXT NOT NULL,
  server_id TEXT NOT NULL,
  state TEXT NOT NULL,                -- running | done | failed | deleted
  data TEXT NOT NULL,                 -- JSON: counts and the answer's other fields
  error TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  finished_at INTEGER
);
CREATE INDEX jobs_kind_owner ON jobs (kind, owner, created_at);
CREATE INDEX jobs_state ON jobs (state, updated_at);
CREATE TABLE job_files (
  job_id TEXT NOT NULL,
  name TEXT NOT NULL,                 -- kept | removed
  seq INTEGER NOT NULL,
  bytes BLOB NOT NULL,                -- whole JSON lines of the result
  PRIMARY KEY (job_id, name, seq)
);
