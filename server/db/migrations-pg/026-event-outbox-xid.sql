-- Each outbox row names the transaction that wrote it (server/db/pg-change-feed.ts): the row is written with its
-- change, in the same transaction, and a listener that comes back after losing its connection reads every row
-- committed since its server first listened (not visible in the snapshot it took then) that it has not delivered.
-- Ids alone cannot say so: rows of concurrent transactions commit out of id order. See docs/events.md. A bigint
-- (the xid8 as a number), so both engines' schemas keep integer columns.
ALTER TABLE event_outbox ADD COLUMN xid BIGINT NOT NULL DEFAULT pg_current_xact_id()::text::bigint;
