-- PostgreSQL twin of migrations/024-languages.sql: a user's language for the screens and an opt-out list's
-- language for its unsubscribe pages (NULL: not chosen).
ALTER TABLE users ADD COLUMN language TEXT COLLATE "C" CHECK (language IN ('en', 'nl', 'de'));
ALTER TABLE optout_lists ADD COLUMN language TEXT COLLATE "C" CHECK (language IN ('en', 'nl', 'de'));
