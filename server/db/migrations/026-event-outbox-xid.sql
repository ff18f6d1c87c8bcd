-- The transaction that wrote an outbox row (PostgreSQL only, server/db/pg-change-feed.ts). On SQLite the table
-- stays empty (one process delivers a committed transaction's events from memory); the column keeps both
-- engines' schemas alike.
ALTER TABLE event_outbox ADD COLUMN xid INTEGER NOT NULL DEFAULT 0;
