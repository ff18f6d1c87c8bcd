-- A scrub's result files are stored as is, not compressed by PostgreSQL (pglz, the default): the job's process
-- copies them in 1 MiB chunks when it ends, and compressing 44 MB of them took 1.2-1.3 s of a 1,000,000-row scrub's
-- 4.9 s; stored as is, 0.3 s (50 inserts of 0.9 MB, /tmp script). They are kept for the retention time (24 h) and
-- are as large as SQLite stores them. docs/performance.md#scrub.
ALTER TABLE job_files ALTER COLUMN bytes SET STORAGE EXTERNAL;
