-- Version 14: the jobs of one agent profile, newest first (the SQLite schema's V22__jobs_by_agent.sql
-- has the comments).
CREATE INDEX jobs_by_agent ON jobs(agent, id);
