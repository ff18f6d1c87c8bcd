-- The live floor (CONTRACT §9): open calls, call-centre time zones, break types, outcome names, and the
-- indexes /cati/floor reads through.

-- A call in progress has duration NULL (CONTRACT §9), so calls.duration loses its NOT NULL. SQLite cannot
-- relax a column constraint in place: the table is rebuilt (the documented 12-step procedure; nothing
-- references calls by foreign key).
CREATE TABLE calls_new (
  id INTEGER PRIMARY KEY,
  time INTEGER NOT NULL,
  survey_id TEXT NOT NULL REFERENCES surveys (id),
  interview_id INTEGER,
  interviewer_id INTEGER,
  telephone_number TEXT NOT NULL,
  extended_status INTEGER,
  duration INTEGER,                   -- NULL: the call is in progress
  waiting_time INTEGER NOT NULL DEFAULT 0,
  call_center_id INTEGER NOT NULL REFERENCES call_centers (id)
);
INSERT INTO calls_new (id, time, survey_id, interview_id, interviewer_id, telephone_number, extended_status, duration, waiting_time, call_center_id)
  SELECT id, time, survey_id, interview_id, interviewer_id, telephone_number, extended_status, duration, waiting_time, call_center_id FROM calls;
DROP TABLE calls;
ALTER TABLE calls_new RENAME TO calls;
CREATE INDEX calls_time ON calls (time);
CREATE INDEX calls_survey_time ON calls (survey_id, time);
-- Replaces 003's (interviewer_id, time): the floor counts an interviewer's calls and completes of today and
-- finds a session's last activity from the index alone, without visiting the table.
CREATE INDEX calls_interviewer_time ON calls (interviewer_id, time, extended_status, duration);
-- Calls and breaks in progress: tiny indexes, one probe per floor row.
CREATE INDEX calls_open ON calls (interviewer_id, time) WHERE duration IS NULL;
CREATE INDEX breaks_open ON breaks (interviewer_id, time) WHERE duration IS NULL;
-- Open sessions (at most one per interviewer, enforced by ingest).
CREATE INDEX sessions_open ON sessions (interviewer_id, login_time) WHERE logout_time IS NULL;

-- A call centre's IANA time zone: its "today" runs from midnight to midnight there. NULL until the server
-- first starts after this migration, which sets it to the server's own zone.
ALTER TABLE call_centers ADD COLUMN time_zone TEXT;

-- Break types (CONTRACT §9): a row appears when a break record first names a type; later records never
-- rename it. Supervisors edit name, max_minutes and is_paid.
CREATE TABLE break_types (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  max_minutes INTEGER CHECK (max_minutes IS NULL OR max_minutes >= 0),
  is_paid INTEGER NOT NULL DEFAULT 0,
  version INTEGER NOT NULL DEFAULT 1
);
INSERT INTO break_types (id, name, is_paid)
  SELECT b.break_type_id, b.break_type_name, COALESCE(b.is_paid, 0) FROM breaks b
  WHERE b.id = (SELECT MIN(id) FROM breaks WHERE break_type_id = b.break_type_id);
-- Every write path (ingest, demo, imports) goes through this: the type exists in the same transaction as
-- the break that first names it, and a refused batch leaves no type behind.
CREATE TRIGGER breaks_name_break_type AFTER INSERT ON breaks
BEGIN
  INSERT OR IGNORE INTO break_types (id, name, is_paid) VALUES (NEW.break_type_id, NEW.break_type_name, COALESCE(NEW.is_paid, 0));
END;

-- The meaning of ExtendedStatus codes (CONTRACT §9); a code without a row counts as Other.
CREATE TABLE extended_statuses (
  code INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  category TEXT NOT NULL CHECK (category IN ('Complete', 'Refusal', 'NoContact', 'Appointment', 'Ineligible', 'Other')),
  version INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX extended_statuses_category ON extended_statuses (category, code);
-- The default table (docs/cati-api.md): the codes the demo dialer uses, covering all six categories.
INSERT INTO extended_statuses (code, name, category) VALUES
  (1, 'Completed interview', 'Complete'),
  (2, 'No answer', 'NoContact'),
  (3, 'Busy', 'NoContact'),
  (4, 'Answering machine', 'NoContact'),
  (5, 'Refusal', 'Refusal'),
  (6, 'Appointment made', 'Appointment'),
  (7, 'Wrong or disconnected number', 'Ineligible'),
  (8, 'Interrupted, call back', 'Appointment'),
  (9, 'Language problem', 'Ineligible'),
  (10, 'Abandoned by the dialer', 'Other');
