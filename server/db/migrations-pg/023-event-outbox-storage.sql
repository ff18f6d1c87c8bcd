-- The outbox's batches are stored uncompressed (issue 26). A batch of 10,000 calls is about 1 MB of JSON, kept
-- for five minutes; compressing it (pglz, the default) took 31-47 ms of the INSERT, against 10-18 ms stored as
-- is (15 inserts each of a batch of varied calls, /tmp script). Rows written before keep their form.
ALTER TABLE event_outbox ALTER COLUMN events SET STORAGE EXTERNAL;
