-- Ids of deleted interviewers, groups and blacklist items are never handed out again: history rows keep a
-- deleted interviewer's InterviewerId (CONTRACT §3), and a stale key or ETag must never reach a newer entity.
-- SQLite reuses MAX(id)+1 after the newest row is deleted, so each delete records the highest id it removed;
-- inserts take their id above both (server/cati/id-allocation.ts).
CREATE TABLE id_high_water (
  entity TEXT PRIMARY KEY,
  last_id INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TRIGGER interviewers_id_high_water AFTER DELETE ON interviewers BEGIN
  INSERT INTO id_high_water (entity, last_id) VALUES ('interviewers', OLD.id)
    ON CONFLICT (entity) DO UPDATE SET last_id = MAX(last_id, excluded.last_id);
END;

CREATE TRIGGER groups_id_high_water AFTER DELETE ON groups BEGIN
  INSERT INTO id_high_water (entity, last_id) VALUES ('groups', OLD.id)
    ON CONFLICT (entity) DO UPDATE SET last_id = MAX(last_id, excluded.last_id);
END;

CREATE TRIGGER blacklist_id_high_water AFTER DELETE ON blacklist BEGIN
  INSERT INTO id_high_water (entity, last_id) VALUES ('blacklist', OLD.id)
    ON CONFLICT (entity) DO UPDATE SET last_id = MAX(last_id, excluded.last_id);
END;
