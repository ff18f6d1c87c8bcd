-- Issue 13: the default key order (Id) under a time filter, served by the primary key instead of a
-- temporary B-tree over the whole filtered range. Per hour of call time, the lowest and highest call id
-- seen; a time range then bounds the id range to scan in key order. Deletes leave the bounds as they
-- were (still bounds), so only inserts and time changes need the triggers.
-- Demo databases made before this release hold some call times with a fraction of a millisecond; times are
-- whole milliseconds everywhere else, and the hour below must be an integer.
UPDATE calls SET time = CAST(time AS INTEGER) WHERE typeof(time) = 'real';

CREATE TABLE call_id_ranges (
  hour INTEGER PRIMARY KEY,           -- floor(time / 3600000) (epoch ms; times may be fractional)
  min_id INTEGER NOT NULL,
  max_id INTEGER NOT NULL
);
INSERT INTO call_id_ranges (hour, min_id, max_id)
  SELECT CAST(time / 3600000.0 AS INTEGER) - (time / 3600000.0 < CAST(time / 3600000.0 AS INTEGER)), min(id), max(id) FROM calls GROUP BY 1;

CREATE TRIGGER calls_id_range_insert AFTER INSERT ON calls BEGIN
  INSERT INTO call_id_ranges (hour, min_id, max_id) VALUES (CAST(new.time / 3600000.0 AS INTEGER) - (new.time / 3600000.0 < CAST(new.time / 3600000.0 AS INTEGER)), new.id, new.id)
    ON CONFLICT (hour) DO UPDATE SET min_id = min(min_id, excluded.min_id), max_id = max(max_id, excluded.max_id);
END;

CREATE TRIGGER calls_id_range_update AFTER UPDATE OF time, id ON calls BEGIN
  INSERT INTO call_id_ranges (hour, min_id, max_id) VALUES (CAST(new.time / 3600000.0 AS INTEGER) - (new.time / 3600000.0 < CAST(new.time / 3600000.0 AS INTEGER)), new.id, new.id)
    ON CONFLICT (hour) DO UPDATE SET min_id = min(min_id, excluded.min_id), max_id = max(max_id, excluded.max_id);
END;
