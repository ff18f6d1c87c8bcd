-- The outbox's large batches are stored deflated by the server (issue 26). A batch of 10,000 calls is about 1 MB
-- of JSON, kept for five minutes. Compressed by PostgreSQL (pglz, the default) its INSERT took 31-47 ms, stored
-- as is 10-18 ms; deflated in Node (zlib level 1, on libuv's threads, while the batch's COPY runs) it is 250 KB
-- and its INSERT 8 ms (15 inserts each, /tmp script). `packed` holds such a batch (deflate of the JSON text) with
-- `events` empty; smaller batches keep their text in `events` and `packed` null. Neither is compressed again.
ALTER TABLE event_outbox ADD COLUMN packed BYTEA;
ALTER TABLE event_outbox ALTER COLUMN events SET STORAGE EXTERNAL;
ALTER TABLE event_outbox ALTER COLUMN packed SET STORAGE EXTERNAL;
