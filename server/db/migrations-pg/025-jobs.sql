-- PostgreSQL twin of migrations/025-jobs.sql: job state any server answers and a scrub's result files in chunks.
CREATE TABLE jobs (
  id TEXT COLLATE "C" PRIMARY KEY,
  kind TEXT COLLATE "C" NOT NULL,
  owner TEXT COLLATE "C" NOT NULL,
  server_id TEXT COLLATE "C" NOT NULL,
  state TEXT COLLATE "C" NOT NULL,
  data TEXT COLLATE "C" NOT NULL,
  error TEXT COLLATE "C",
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  finished_at BIGINT
);
CREATE INDEX jobs_kind_owner ON jobs (kind, owner, created_at);
CREATE INDEX jobs_state ON jobs (state, updated_at);
CREATE TABLE job_files (
  job_id TEXT COLLATE "C" NOT NULL,
  name TEXT COLLATE "C" NOT NULL,
  seq BIGINT NOT NULL,
  bytes BYTEA NOT NULL,
  PRIMARY KEY (job_id, name, seq)
);
