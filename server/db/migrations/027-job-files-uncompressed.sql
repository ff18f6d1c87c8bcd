-- On PostgreSQL a scrub's result files are no longer compressed as they are stored (its 027). SQLite never
-- compresses a value; nothing changes here, and the two schemas keep the same history.
SELECT 1;
