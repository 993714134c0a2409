-- Version 10: the session a red check continues (the SQLite schema's V18__checks_resume.sql has the comments).
ALTER TABLE workspaces ADD COLUMN checks_resume_phase TEXT;
ALTER TABLE workspaces ADD COLUMN checks_resume_profile TEXT;
ALTER TABLE workspaces ADD COLUMN checks_resume_session TEXT;
