-- On PostgreSQL the outbox's batches are stored uncompressed (issue 26: compressing a batch of 10,000 calls was
-- most of its INSERT). SQLite leaves its outbox table unused (one server per file). This file keeps both engines' migrations
-- numbered alike.
SELECT 1;
