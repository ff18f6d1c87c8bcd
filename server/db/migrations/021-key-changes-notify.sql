-- Revocations announced (issue 26): on PostgreSQL a trigger NOTIFYs every server when API keys are revoked, so
-- their key caches need no query per request. SQLite needs nothing: one server per file, and its key cache
-- watches PRAGMA data_version, which moves on any other connection's commit. This file keeps both engines'
-- migrations numbered alike.
SELECT 1;
