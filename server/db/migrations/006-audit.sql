-- Audit log (CONTRACT §10): every change a person or client makes, written in the same transaction as the
-- change. Append-only: the triggers refuse UPDATE and DELETE whatever the caller.
CREATE TABLE audit_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  time INTEGER NOT NULL,              -- epoch ms
  actor_key_id INTEGER,               -- NULL for the CLI, the unsubscribe page and in-memory keys
  actor TEXT NOT NULL,                -- the key's name, 'cli' or 'unsubscribe page'
  action TEXT NOT NULL,               -- created, updated, deleted, locked, unlocked, imported, ...
  entity TEXT NOT NULL,               -- the set's name: blacklist, groups, interviewers, optout-emails, keys, ...
  entity_id TEXT,
  changes TEXT NOT NULL               -- JSON: create → new values, update → {field: [before, after]}, delete → old values
);
CREATE INDEX audit_log_time ON audit_log (time, id);
CREATE INDEX audit_log_entity ON audit_log (entity, time);
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
