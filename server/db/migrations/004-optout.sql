-- Opt-out lists (optout seed §4.1-4.4, CONTRACT §5). Timestamps are epoch ms.
CREATE TABLE optout_lists (
  id INTEGER PRIMARY KEY,
  company_id INTEGER NOT NULL,
  project_id TEXT,                    -- NULL = the company-level list
  created_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX optout_lists_company ON optout_lists (company_id) WHERE project_id IS NULL;
CREATE UNIQUE INDEX optout_lists_project ON optout_lists (company_id, project_id) WHERE project_id IS NOT NULL;

CREATE TABLE optout_domains (
  id INTEGER PRIMARY KEY,
  list_id INTEGER NOT NULL REFERENCES optout_lists (id) ON DELETE CASCADE,
  domain TEXT NOT NULL,               -- lowercase, punycode
  timestamp INTEGER NOT NULL,
  UNIQUE (list_id, domain)
);

CREATE TABLE optout_emails (
  id INTEGER PRIMARY KEY,
  list_id INTEGER NOT NULL REFERENCES optout_lists (id) ON DELETE CASCADE,
  email_address TEXT NOT NULL,        -- lowercase, domain in punycode
  timestamp INTEGER NOT NULL,
  unsubscribed_from TEXT,             -- project id the address unsubscribed from
  UNIQUE (list_id, email_address)
);
CREATE INDEX optout_emails_list_time ON optout_emails (list_id, timestamp);
CREATE INDEX optout_domains_list_time ON optout_domains (list_id, timestamp);
