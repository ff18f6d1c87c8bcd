-- PostgreSQL twin of migrations/014-call-id-ranges.sql: per hour of call time, the lowest and highest call id
-- seen, so a time range bounds the id range to scan in key order. Deletes leave the bounds as they were (still
-- bounds), so only inserts and time changes need the trigger. (SQLite's clean-up of fractional times has no
-- twin: calls.time is BIGINT here.) The hour is floor(time / 3600000), also for times before 1970.
CREATE TABLE call_id_ranges (
  hour BIGINT PRIMARY KEY,
  min_id BIGINT NOT NULL,
  max_id BIGINT NOT NULL
);
INSERT INTO call_id_ranges (hour, min_id, max_id)
  SELECT floor(time / 3600000.0)::bigint, min(id), max(id) FROM calls GROUP BY 1;

-- Row by row for the rare time change; once per statement for inserts (an ingest batch of 10,000 calls makes
-- one grouped upsert, not 10,000).
CREATE FUNCTION calls_id_range() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO call_id_ranges (hour, min_id, max_id) VALUES (floor(NEW.time / 3600000.0)::bigint, NEW.id, NEW.id)
    ON CONFLICT (hour) DO UPDATE SET min_id = LEAST(call_id_ranges.min_id, excluded.min_id), max_id = GREATEST(call_id_ranges.max_id, excluded.max_id);
  RETURN NULL;
END $$;
CREATE FUNCTION calls_id_ranges_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO call_id_ranges (hour, min_id, max_id)
    SELECT floor(time / 3600000.0)::bigint, min(id), max(id) FROM new_rows GROUP BY 1
    ON CONFLICT (hour) DO UPDATE SET min_id = LEAST(call_id_ranges.min_id, excluded.min_id), max_id = GREATEST(call_id_ranges.max_id, excluded.max_id);
  RETURN NULL;
END $$;
CREATE TRIGGER calls_id_range_insert AFTER INSERT ON calls REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION calls_id_ranges_inserted();
CREATE TRIGGER calls_id_range_update AFTER UPDATE OF time, id ON calls FOR EACH ROW EXECUTE FUNCTION calls_id_range();
