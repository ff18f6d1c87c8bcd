-- History checks its references once per statement (issue 26). As FOREIGN KEYs, calls.survey_id,
-- calls.call_center_id, breaks.survey_id and breaks.call_center_id were checked row by row: a 10,000-call ingest
-- ran 20,000 lookups, 70 of the 188 ms its COPY took (COPY of /tmp rows with and without the constraints,
-- alternated 12 times). The same rules now hold through triggers:
-- - an insert into calls or breaks locks each distinct survey and call centre it names FOR KEY SHARE (as the
--   foreign key did, so no one deletes them before it commits) and fails with foreign_key_violation (23503) when
--   one does not exist: one grouped lookup per statement;
-- - an update that changes those columns is checked row by row (PATCH never changes them);
-- - deleting a survey or call centre, or changing its id, while history refers to it fails the same way (the
--   foreign keys' NO ACTION). Under READ COMMITTED each check reads the latest committed rows; under SERIALIZABLE
--   (the server's transactions) a conflicting concurrent insert and delete cannot both commit.
-- Surveys and call centres are never deleted by the server; the guard is for SQL by hand.
ALTER TABLE calls DROP CONSTRAINT calls_survey_id_fkey, DROP CONSTRAINT calls_call_center_id_fkey;
ALTER TABLE breaks DROP CONSTRAINT breaks_survey_id_fkey, DROP CONSTRAINT breaks_call_center_id_fkey;

CREATE FUNCTION history_references_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  missing TEXT;
BEGIN
  PERFORM 1 FROM surveys WHERE id IN (SELECT survey_id FROM new_rows) FOR KEY SHARE;
  PERFORM 1 FROM call_centers WHERE id IN (SELECT call_center_id FROM new_rows) FOR KEY SHARE;
  SELECT format('survey_id %s is not in surveys', n.survey_id) INTO missing FROM (SELECT DISTINCT survey_id FROM new_rows) n
    WHERE n.survey_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM surveys s WHERE s.id = n.survey_id) LIMIT 1;
  IF missing IS NULL THEN
    SELECT format('call_center_id %s is not in call_centers', n.call_center_id) INTO missing FROM (SELECT DISTINCT call_center_id FROM new_rows) n
      WHERE NOT EXISTS (SELECT 1 FROM call_centers c WHERE c.id = n.call_center_id) LIMIT 1;
  END IF;
  IF missing IS NOT NULL THEN
    RAISE foreign_key_violation USING MESSAGE = format('insert or update on table "%s" violates its references: %s', TG_TABLE_NAME, missing);
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION history_references_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.survey_id IS NOT NULL THEN
    PERFORM 1 FROM surveys WHERE id = NEW.survey_id FOR KEY SHARE;
    IF NOT FOUND THEN
      RAISE foreign_key_violation USING MESSAGE = format('insert or update on table "%s" violates its references: survey_id %s is not in surveys', TG_TABLE_NAME, NEW.survey_id);
    END IF;
  END IF;
  PERFORM 1 FROM call_centers WHERE id = NEW.call_center_id FOR KEY SHARE;
  IF NOT FOUND THEN
    RAISE foreign_key_violation USING MESSAGE = format('insert or update on table "%s" violates its references: call_center_id %s is not in call_centers', TG_TABLE_NAME, NEW.call_center_id);
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION history_referenced_gone() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  used BOOLEAN;
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.id IS NOT DISTINCT FROM OLD.id THEN
    RETURN NULL;
  END IF;
  IF TG_TABLE_NAME = 'surveys' THEN
    used := EXISTS (SELECT 1 FROM calls WHERE survey_id = OLD.id) OR EXISTS (SELECT 1 FROM breaks WHERE survey_id = OLD.id);
  ELSE
    used := EXISTS (SELECT 1 FROM calls WHERE call_center_id = OLD.id) OR EXISTS (SELECT 1 FROM breaks WHERE call_center_id = OLD.id);
  END IF;
  IF used THEN
    RAISE foreign_key_violation USING MESSAGE = format('update or delete on table "%s" violates the references of history: id %s is still referenced', TG_TABLE_NAME, OLD.id);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER calls_references_insert AFTER INSERT ON calls REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION history_references_inserted();
CREATE TRIGGER breaks_references_insert AFTER INSERT ON breaks REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION history_references_inserted();
CREATE TRIGGER calls_references_update AFTER UPDATE OF survey_id, call_center_id ON calls FOR EACH ROW
  WHEN (OLD.survey_id IS DISTINCT FROM NEW.survey_id OR OLD.call_center_id IS DISTINCT FROM NEW.call_center_id)
  EXECUTE FUNCTION history_references_updated();
CREATE TRIGGER breaks_references_update AFTER UPDATE OF survey_id, call_center_id ON breaks FOR EACH ROW
  WHEN (OLD.survey_id IS DISTINCT FROM NEW.survey_id OR OLD.call_center_id IS DISTINCT FROM NEW.call_center_id)
  EXECUTE FUNCTION history_references_updated();
CREATE TRIGGER surveys_history_referenced AFTER DELETE OR UPDATE OF id ON surveys FOR EACH ROW
  EXECUTE FUNCTION history_referenced_gone();
CREATE TRIGGER call_centers_history_referenced AFTER DELETE OR UPDATE OF id ON call_centers FOR EACH ROW
  EXECUTE FUNCTION history_referenced_gone();
