-- On PostgreSQL the outbox's large batches are stored deflated (issue 26: compressing a batch of 10,000 calls was
-- most of its INSERT). SQLite leaves its outbox table unused (one server per file); the column keeps the two
-- schemas alike.
ALTER TABLE event_outbox ADD COLUMN packed BLOB;
