-- Version 15: execution.review_feedback and land: auto (issue 45; the SQLite schema's
-- V23__review_feedback.sql has the comments).
ALTER TABLE workspaces ADD COLUMN review_sent TEXT;
ALTER TABLE workspaces ADD COLUMN review_rounds INTEGER NOT NULL DEFAULT 0;
ALTER TABLE workspaces ADD COLUMN land_failures INTEGER NOT NULL DEFAULT 0;
