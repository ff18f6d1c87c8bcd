-- CATI management: call centres, groups, interviewers, surveys, assignments, history (CONTRACT §3, §4).
-- Timestamps are INTEGER epoch ms. `version` columns are bumped on every write and serve as ETags.

CREATE TABLE call_centers (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  version INTEGER NOT NULL DEFAULT 1
);
INSERT INTO call_centers (id, name) VALUES (1, 'Main');

CREATE TABLE groups (
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused: history and stale ETags keep pointing at the deleted one
  name TEXT NOT NULL UNIQUE,
  description TEXT,
  version INTEGER NOT NULL DEFAULT 1
);
INSERT INTO groups (id, name, description) VALUES (1, 'CATI Interviewers', 'Every interviewer not placed in another group');

-- Nesting: a group may have several parents; cycles are rejected by the service.
CREATE TABLE group_parents (
  group_id INTEGER NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
  parent_id INTEGER NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
  PRIMARY KEY (group_id, parent_id)
) WITHOUT ROWID;
CREATE INDEX group_parents_parent ON group_parents (parent_id);

CREATE TABLE interviewers (
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused: history and stale ETags keep pointing at the deleted one
  name TEXT NOT NULL UNIQUE,
  display_name TEXT,
  description TEXT,
  call_center_id INTEGER NOT NULL DEFAULT 1 REFERENCES call_centers (id),
  location TEXT,
  dial_type TEXT NOT NULL DEFAULT 'Manual' CHECK (dial_type IN ('Automatic', 'Manual', 'Assisted')),
  assignments_list_mode TEXT NOT NULL DEFAULT 'AllCalls' CHECK (assignments_list_mode IN ('AssignedCallsOnly', 'AllCalls')),
  automatic_survey_id TEXT,
  is_locked INTEGER NOT NULL DEFAULT 0,
  locked_date INTEGER,
  password_hash TEXT,                 -- scrypt$N$r$p$salt$hash, never returned
  pwd_set_date INTEGER,
  attribute1 TEXT,
  attribute2 TEXT,
  attribute3 TEXT,
  attribute4 TEXT,
  attribute5 TEXT,
  version INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX interviewers_call_center ON interviewers (call_center_id);

CREATE TABLE interviewer_groups (
  interviewer_id INTEGER NOT NULL REFERENCES interviewers (id) ON DELETE CASCADE,
  group_id INTEGER NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
  PRIMARY KEY (interviewer_id, group_id)
) WITHOUT ROWID;
CREATE INDEX interviewer_groups_group ON interviewer_groups (group_id, interviewer_id);

CREATE TABLE surveys (
  id TEXT PRIMARY KEY,                -- p + digits
  name TEXT NOT NULL,
  sample_size INTEGER NOT NULL DEFAULT 0,
  state TEXT NOT NULL DEFAULT 'Closed' CHECK (state IN ('Closed', 'Open', 'SoftDeleted')),
  extended_status_group TEXT,
  scheduling TEXT,
  call_delivery_mode TEXT NOT NULL DEFAULT 'InOrder' CHECK (call_delivery_mode IN ('InOrder', 'Random')),
  call_groups INTEGER NOT NULL DEFAULT 0,
  version INTEGER NOT NULL DEFAULT 1
);

CREATE TABLE survey_variables (
  survey_id TEXT NOT NULL REFERENCES surveys (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  available_as_cati_filter INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (survey_id, name)
) WITHOUT ROWID;

-- An interview's current answers, replicated by the dialer with its call records (CONTRACT §4).
CREATE TABLE interview_variables (
  survey_id TEXT NOT NULL,
  interview_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  value TEXT,
  PRIMARY KEY (survey_id, interview_id, name)
) WITHOUT ROWID;

-- Assignments. Counts are always computed from these rows, never stored.
CREATE TABLE interviewer_survey_assignments (
  interviewer_id INTEGER NOT NULL REFERENCES interviewers (id) ON DELETE CASCADE,
  survey_id TEXT NOT NULL REFERENCES surveys (id) ON DELETE CASCADE,
  PRIMARY KEY (interviewer_id, survey_id)
) WITHOUT ROWID;
CREATE INDEX interviewer_survey_assignments_survey ON interviewer_survey_assignments (survey_id);

CREATE TABLE group_survey_assignments (
  group_id INTEGER NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
  survey_id TEXT NOT NULL REFERENCES surveys (id) ON DELETE CASCADE,
  call_center_id INTEGER NOT NULL REFERENCES call_centers (id),
  PRIMARY KEY (group_id, survey_id, call_center_id)
) WITHOUT ROWID;
CREATE INDEX group_survey_assignments_survey ON group_survey_assignments (survey_id, call_center_id);

CREATE TABLE interviewer_call_assignments (
  interviewer_id INTEGER NOT NULL REFERENCES interviewers (id) ON DELETE CASCADE,
  survey_id TEXT NOT NULL REFERENCES surveys (id) ON DELETE CASCADE,
  interview_id INTEGER NOT NULL,
  PRIMARY KEY (interviewer_id, survey_id, interview_id)
) WITHOUT ROWID;
CREATE INDEX interviewer_call_assignments_survey ON interviewer_call_assignments (survey_id);

CREATE TABLE group_call_assignments (
  group_id INTEGER NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
  survey_id TEXT NOT NULL REFERENCES surveys (id) ON DELETE CASCADE,
  call_center_id INTEGER NOT NULL REFERENCES call_centers (id),
  interview_id INTEGER NOT NULL,
  PRIMARY KEY (group_id, survey_id, call_center_id, interview_id)
) WITHOUT ROWID;
CREATE INDEX group_call_assignments_survey ON group_call_assignments (survey_id, call_center_id);

-- History. interviewer_id carries no foreign key: history survives a deleted interviewer.
CREATE TABLE calls (
  id INTEGER PRIMARY KEY,
  time INTEGER NOT NULL,
  survey_id TEXT NOT NULL REFERENCES surveys (id),
  interview_id INTEGER,
  interviewer_id INTEGER,
  telephone_number TEXT NOT NULL,
  extended_status INTEGER,
  duration INTEGER NOT NULL DEFAULT 0,
  waiting_time INTEGER NOT NULL DEFAULT 0,
  call_center_id INTEGER NOT NULL REFERENCES call_centers (id)
);
CREATE INDEX calls_time ON calls (time);
CREATE INDEX calls_survey_time ON calls (survey_id, time);
CREATE INDEX calls_interviewer_time ON calls (interviewer_id, time);

CREATE TABLE breaks (
  id INTEGER PRIMARY KEY,
  time INTEGER NOT NULL,
  survey_id TEXT REFERENCES surveys (id),
  duration INTEGER,
  interviewer_id INTEGER NOT NULL,
  call_center_id INTEGER NOT NULL REFERENCES call_centers (id),
  break_type_id INTEGER NOT NULL,
  break_type_name TEXT NOT NULL,
  is_paid INTEGER
);
CREATE INDEX breaks_time ON breaks (time);
CREATE INDEX breaks_survey_time ON breaks (survey_id, time);
CREATE INDEX breaks_interviewer_time ON breaks (interviewer_id, time);

CREATE TABLE sessions (
  id INTEGER PRIMARY KEY,
  call_center_id INTEGER NOT NULL REFERENCES call_centers (id),
  interviewer_id INTEGER NOT NULL,
  login_time INTEGER NOT NULL,
  logout_time INTEGER,                -- NULL: still logged in
  version INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX sessions_login_time ON sessions (login_time);
CREATE INDEX sessions_logout_time ON sessions (logout_time);
CREATE INDEX sessions_interviewer_time ON sessions (interviewer_id, login_time);
