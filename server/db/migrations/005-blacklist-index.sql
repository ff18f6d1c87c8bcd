-- Blacklist (task A). Controller.Check looks numbers up through the UNIQUE (telephone_number, type)
-- index of 002 (one probe for Equal, one per prefix length for StartWith). This index serves the
-- supervisors' "newest first" view: $orderby=Created desc and $filter on Created.
CREATE INDEX blacklist_created ON blacklist (created, id);
