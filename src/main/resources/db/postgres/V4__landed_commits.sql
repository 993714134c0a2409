-- Version 4: the commit that landed (issue 30; the SQLite schema's V12__landed_commits.sql has the comments).
ALTER TABLE jobs ADD COLUMN landed_sha TEXT;
