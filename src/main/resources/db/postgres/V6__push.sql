-- Version 6: execution.merge: push (issue 32; the SQLite schema's V14__push.sql has the comments).
ALTER TABLE workspaces ADD COLUMN push_sha TEXT;
ALTER TABLE workspaces ADD COLUMN push_url TEXT;
ALTER TABLE workspaces ADD COLUMN push_failures INTEGER NOT NULL DEFAULT 0;
ALTER TABLE workspaces ADD COLUMN push_tried_at BIGINT;
