-- The person's language and the respondent's (docs/people.md#language, docs/unsubscribe.md#languages): a user's
-- chosen language for the screens, and an opt-out list's language for its unsubscribe pages. NULL: not chosen
-- (the screens follow the browser or the OS; the pages follow Accept-Language, then the default language).
ALTER TABLE users ADD COLUMN language TEXT CHECK (language IN ('en', 'nl', 'de'));
ALTER TABLE optout_lists ADD COLUMN language TEXT CHECK (language IN ('en', 'nl', 'de'));
