-- PostgreSQL twin of migrations/015-call-counts.sql: summaries of the calls kept by triggers in the writing
-- transaction (call_totals: calls per interviewer and 15-minute bucket; call_counts: the same by outcome).
-- bucket = time / 900000 with integer division truncating toward zero, as on SQLite.
CREATE TABLE call_counts (
  interviewer_id BIGINT NOT NULL,
  bucket BIGINT NOT NULL,           -- time / 900000 (15 minutes since the epoch)
  extended_status BIGINT NOT NULL,  -- the call's ExtendedStatus; -2147483649 (outside Int32) for none
  n BIGINT NOT NULL,
  PRIMARY KEY (interviewer_id, extended_status, bucket)
);
INSERT INTO call_counts (interviewer_id, extended_status, bucket, n)
  SELECT interviewer_id, COALESCE(extended_status, -2147483649), time / 900000, COUNT(*)
  FROM calls WHERE interviewer_id IS NOT NULL GROUP BY 1, 2, 3;

CREATE TABLE call_totals (
  interviewer_id BIGINT NOT NULL,
  bucket BIGINT NOT NULL,           -- time / 900000
  n BIGINT NOT NULL,
  PRIMARY KEY (interviewer_id, bucket)
);
INSERT INTO call_totals (interviewer_id, bucket, n)
  SELECT interviewer_id, bucket, SUM(n) FROM call_counts GROUP BY 1, 2;

-- Counts one call (sign 1) or uncounts it (sign -1) in both summaries.
CREATE FUNCTION call_counts_add(interviewer BIGINT, t BIGINT, status BIGINT, sign INTEGER) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF sign > 0 THEN
    INSERT INTO call_counts (interviewer_id, bucket, extended_status, n) VALUES (interviewer, t / 900000, COALESCE(status, -2147483649), 1)
      ON CONFLICT (interviewer_id, extended_status, bucket) DO UPDATE SET n = call_counts.n + 1;
    INSERT INTO call_totals (interviewer_id, bucket, n) VALUES (interviewer, t / 900000, 1)
      ON CONFLICT (interviewer_id, bucket) DO UPDATE SET n = call_totals.n + 1;
  ELSE
    UPDATE call_counts SET n = n - 1
      WHERE interviewer_id = interviewer AND bucket = t / 900000 AND extended_status = COALESCE(status, -2147483649);
    UPDATE call_totals SET n = n - 1 WHERE interviewer_id = interviewer AND bucket = t / 900000;
  END IF;
END $$;

CREATE FUNCTION calls_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.interviewer_id IS NOT NULL THEN
    PERFORM call_counts_add(OLD.interviewer_id, OLD.time, OLD.extended_status, -1);
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') AND NEW.interviewer_id IS NOT NULL THEN
    PERFORM call_counts_add(NEW.interviewer_id, NEW.time, NEW.extended_status, 1);
  END IF;
  RETURN NULL;
END $$;
-- Inserts and deletes once per statement over their transition table: an ingest batch (or a bulk delete) makes
-- one grouped upsert per summary instead of two per call. A closing PATCH updates one row: row by row above.
CREATE FUNCTION calls_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO call_counts (interviewer_id, bucket, extended_status, n)
    SELECT interviewer_id, time / 900000, COALESCE(extended_status, -2147483649), count(*) FROM new_rows WHERE interviewer_id IS NOT NULL GROUP BY 1, 2, 3
    ON CONFLICT (interviewer_id, extended_status, bucket) DO UPDATE SET n = call_counts.n + excluded.n;
  INSERT INTO call_totals (interviewer_id, bucket, n)
    SELECT interviewer_id, time / 900000, count(*) FROM new_rows WHERE interviewer_id IS NOT NULL GROUP BY 1, 2
    ON CONFLICT (interviewer_id, bucket) DO UPDATE SET n = call_totals.n + excluded.n;
  RETURN NULL;
END $$;
CREATE FUNCTION calls_uncounted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE call_counts c SET n = c.n - d.n
    FROM (SELECT interviewer_id, time / 900000 AS bucket, COALESCE(extended_status, -2147483649) AS status, count(*) AS n
            FROM old_rows WHERE interviewer_id IS NOT NULL GROUP BY 1, 2, 3) d
    WHERE c.interviewer_id = d.interviewer_id AND c.bucket = d.bucket AND c.extended_status = d.status;
  UPDATE call_totals c SET n = c.n - d.n
    FROM (SELECT interviewer_id, time / 900000 AS bucket, count(*) AS n FROM old_rows WHERE interviewer_id IS NOT NULL GROUP BY 1, 2) d
    WHERE c.interviewer_id = d.interviewer_id AND c.bucket = d.bucket;
  RETURN NULL;
END $$;
CREATE TRIGGER calls_count_insert AFTER INSERT ON calls REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION calls_counted();
CREATE TRIGGER calls_count_delete AFTER DELETE ON calls REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION calls_uncounted();
CREATE TRIGGER calls_count_update AFTER UPDATE OF interviewer_id, time, extended_status ON calls FOR EACH ROW EXECUTE FUNCTION calls_count();
