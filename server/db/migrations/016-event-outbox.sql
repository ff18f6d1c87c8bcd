-- The outbox of /events across server processes (server/events/pg-notify.ts). Only the PostgreSQL engine
-- writes it (there several servers share one database); on SQLite the table stays empty and exists so both
-- engines' migrations keep the same numbers and schema.
CREATE TABLE event_outbox (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  time INTEGER NOT NULL,              -- epoch ms
  events TEXT NOT NULL                -- JSON: the batch of events
);
CREATE INDEX event_outbox_time ON event_outbox (time);
