-- Revocations announced (issue 26): every statement that revokes, re-scopes or deletes API keys NOTIFYs
-- `cati_keys` when it commits, whoever runs it (any server, the `keys` CLI, SQL by hand). Each server's event
-- listener (server/events/pg-notify.ts) hears it and drops its cache of authenticated keys, so a request with a
-- cached key needs no query to learn that the key was revoked elsewhere.
CREATE FUNCTION cati_keys_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('cati_keys', '');
  RETURN NULL;
END
$$;
CREATE TRIGGER api_keys_changed AFTER UPDATE OF revoked_at, permissions, projects, key_hash OR DELETE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION cati_keys_changed();
