-- History checks its references once per statement on PostgreSQL (issue 26): there the foreign keys of calls and
-- breaks became statement-level triggers (a row-by-row check was a third of an ingest's COPY). SQLite keeps its
-- foreign keys: its checks are index lookups in the same process, a small part of an insert. This file keeps both
-- engines' migrations numbered alike.
SELECT 1;
