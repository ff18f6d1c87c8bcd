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
CREATE TRIGGER calls_count_insert AFTER INSERT ON calls FOR EACH ROW WHEN (NEW.interviewer_id IS NOT NULL) EXECUTE FUNCTION calls_count();
CREATE TRIGGER calls_count_delete AFTER DELETE ON calls FOR EACH ROW WHEN (OLD.interviewer_id IS NOT NULL) EXECUTE FUNCTION calls_count();
CREATE TRIGGER calls_count_update AFTER UPDATE OF interviewer_id, time, extended_status ON calls FOR EACH ROW EXECUTE FUNCTION calls_count();
