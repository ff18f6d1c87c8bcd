-- Issue 13: the default key order (Id) under a time filter, served by the primary key instead of a
-- temporary B-tree over the whole filtered range. Per hour of call time, the lowest and highest call id
-- seen; a time range then bounds the id range to scan in key order. Deletes leave the bounds as they
-- were (still bounds), so only inserts and time changes need the triggers.
CREATE TABLE call_id_ranges (
  hour INTEGER PRIMARY KEY,           -- time / 3600000 (epoch ms, floor)
  min_id INTEGER NOT NULL,
  max_id INTEGER NOT NULL
);
INSERT INTO call_id_ranges (hour, min_id, max_id)
  SELECT time / 3600000 - (time < 0 AND time % 3600000 <> 0), min(id), max(id) FROM calls GROUP BY 1;

CREATE TRIGGER calls_id_range_insert AFTER INSERT ON calls BEGIN
  INSERT INTO call_id_ranges (hour, min_id, max_id) VALUES (new.time / 3600000 - (new.time < 0 AND new.time % 3600000 <> 0), new.id, new.id)
    ON CONFLICT (hour) DO UPDATE SET min_id = min(min_id, excluded.min_id), max_id = max(max_id, excluded.max_id);
END;

CREATE TRIGGER calls_id_range_update AFTER UPDATE OF time, id ON calls BEGIN
  INSERT INTO call_id_ranges (hour, min_id, max_id) VALUES (new.time / 3600000 - (new.time < 0 AND new.time % 3600000 <> 0), new.id, new.id)
    ON CONFLICT (hour) DO UPDATE SET min_id = min(min_id, excluded.min_id), max_id = max(max_id, excluded.max_id);
END;
