-- Telephone-number blacklist (seed §4.2, CONTRACT §3).
CREATE TABLE blacklist (
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused: a stale key or ETag never reaches a newer item
  telephone_number TEXT NOT NULL,
  type TEXT NOT NULL CHECK (type IN ('Equal', 'StartWith')),
  comment TEXT,
  created INTEGER NOT NULL,           -- epoch ms
  version INTEGER NOT NULL DEFAULT 1, -- bumped on every write; the ETag
  UNIQUE (telephone_number, type)
);
