-- PostgreSQL twin of migrations/005-blacklist-index.sql: the supervisors' "newest first" view
-- ($orderby=Created desc, $filter on Created).
CREATE INDEX blacklist_created ON blacklist (created, id);
