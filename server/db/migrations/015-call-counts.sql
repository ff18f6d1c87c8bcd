-- Summaries of the calls kept by triggers in the writing transaction, so the floor's CallsToday and CompletesToday
-- (CONTRACT §9) add up a few dozen rows per interviewer instead of counting every call of the day. Every zone's
-- midnight today lies a whole number of 15 minutes from UTC, so a centre's day is a whole range of buckets
-- (/cati/floor falls back to counting calls when it is not).
-- - call_totals: calls per interviewer and 15-minute bucket (CallsToday reads one row per bucket);
-- - call_counts: the same by outcome, keyed (interviewer, outcome, bucket), so CompletesToday reads a range of
--   buckets of each outcome whose category is Complete, nothing else (no secondary index: counting a call stays
--   one upsert per summary).
CREATE TABLE call_counts (
  interviewer_id INTEGER NOT NULL,
  bucket INTEGER NOT NULL,          -- time / 900000 (15 minutes since the epoch)
  extended_status INTEGER NOT NULL, -- the call's ExtendedStatus; -2147483649 (outside Int32) for none
  n INTEGER NOT NULL,
  PRIMARY KEY (interviewer_id, extended_status, bucket)
) WITHOUT ROWID;
INSERT INTO call_counts (interviewer_id, extended_status, bucket, n)
  SELECT interviewer_id, COALESCE(extended_status, -2147483649), time / 900000, COUNT(*)
  FROM calls WHERE interviewer_id IS NOT NULL GROUP BY 1, 2, 3;

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
