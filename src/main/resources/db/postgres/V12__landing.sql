-- Version 12: the merge queue (the SQLite schema's V20__landing.sql has the comments).
ALTER TABLE workspaces ADD COLUMN landing_rounds INTEGER NOT NULL DEFAULT 0;
ALTER TABLE workspaces ADD COLUMN landing_fold TEXT;
