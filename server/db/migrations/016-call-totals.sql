-- The floor's CallsToday and CompletesToday (CONTRACT §9) read fewer summary rows: call_counts (migration 015) holds
-- a row per outcome in each 15-minute bucket, keyed by (interviewer, bucket, outcome), so adding up an interviewer's
-- day read every outcome's rows, twice. Now:
-- - call_totals: calls per interviewer and 15-minute bucket, all outcomes together (CallsToday reads one row per
--   bucket);
-- - call_counts keyed by (interviewer, outcome, bucket): CompletesToday reads a range of buckets per outcome whose
--   category is Complete, nothing else (no secondary index: counting a call stays one upsert per summary).
-- Both kept by the same triggers, in the writing transaction.
DROP TRIGGER calls_count_insert;
DROP TRIGGER calls_count_delete;
DROP TRIGGER calls_count_update;

CREATE TABLE call_counts_by_outcome (
  interviewer_id INTEGER NOT NULL,
  bucket INTEGER NOT NULL,          -- time / 900000 (15 minutes since the epoch)
  extended_status INTEGER NOT NULL, -- the call's ExtendedStatus; -2147483649 (outside Int32) for none
  n INTEGER NOT NULL,
  PRIMARY KEY (interviewer_id, extended_status, bucket)
) WITHOUT ROWID;
INSERT INTO call_counts_by_outcome (interviewer_id, bucket, extended_status, n)
  SELECT interviewer_id, bucket, extended_status, n FROM call_counts WHERE n <> 0 ORDER BY interviewer_id, extended_status, bucket;
DROP TABLE call_counts;
ALTER TABLE call_counts_by_outcome RENAME TO call_counts;

CREATE TABLE call_totals (
  interviewer_id INTEGER NOT NULL,
  bucket INTEGER NOT NULL,          -- time / 900000
  n INTEGER NOT NULL,
  PRIMARY KEY (interviewer_id, bucket)
) WITHOUT ROWID;
INSERT INTO call_totals (interviewer_id, bucket, n)
  SELECT interviewer_id, bucket, SUM(n) FROM call_counts GROUP BY 1, 2;

CREATE TRIGGER calls_count_insert AFTER INSERT ON calls WHEN NEW.interviewer_id IS NOT NULL
BEGIN
  INSERT INTO call_counts (interviewer_id, bucket, extended_status, n)
    VALUES (NEW.interviewer_id, NEW.time / 900000, COALESCE(NEW.extended_status, -2147483649), 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
  INSERT INTO call_totals (interviewer_id, bucket, n) VALUES (NEW.interviewer_id, NEW.time / 900000, 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER calls_count_delete AFTER DELETE ON calls WHEN OLD.interviewer_id IS NOT NULL
BEGIN
  UPDATE call_counts SET n = n - 1
    WHERE interviewer_id = OLD.interviewer_id AND bucket = OLD.time / 900000 AND extended_status = COALESCE(OLD.extended_status, -2147483649);
  UPDATE call_totals SET n = n - 1 WHERE interviewer_id = OLD.interviewer_id AND bucket = OLD.time / 900000;
END;

CREATE TRIGGER calls_count_update AFTER UPDATE OF interviewer_id, time, extended_status ON calls
BEGIN
  UPDATE call_counts SET n = n - 1
    WHERE OLD.interviewer_id IS NOT NULL
      AND interviewer_id = OLD.interviewer_id AND bucket = OLD.time / 900000 AND extended_status = COALESCE(OLD.extended_status, -2147483649);
  UPDATE call_totals SET n = n - 1
    WHERE OLD.interviewer_id IS NOT NULL AND interviewer_id = OLD.interviewer_id AND bucket = OLD.time / 900000;
  INSERT INTO call_counts (interviewer_id, bucket, extended_status, n)
    SELECT NEW.interviewer_id, NEW.time / 900000, COALESCE(NEW.extended_status, -2147483649), 1 WHERE NEW.interviewer_id IS NOT NULL
    ON CONFLICT DO UPDATE SET n = n + 1;
  INSERT INTO call_totals (interviewer_id, bucket, n)
    SELECT NEW.interviewer_id, NEW.time / 900000, 1 WHERE NEW.interviewer_id IS NOT NULL
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
