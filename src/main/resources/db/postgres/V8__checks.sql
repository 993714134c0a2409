-- Version 8: execution.checks (issue 32; the SQLite schema's V16__checks.sql has the comments).
ALTER TABLE workspaces ADD COLUMN checks_since BIGINT;
ALTER TABLE workspaces ADD COLUMN checks_next_at BIGINT;
ALTER TABLE workspaces ADD COLUMN checks_rounds INTEGER NOT NULL DEFAULT 0;
