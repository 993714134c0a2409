-- Version 2: each job's outcome class, and the agent profiles a provider's limit paused (issue 28;
-- the SQLite schema's V10__outcomes.sql has the comments).
ALTER TABLE jobs ADD COLUMN outcome TEXT;
ALTER TABLE jobs ADD COLUMN agent TEXT;

CREATE TABLE agent_pauses (
  profile  TEXT PRIMARY KEY,
  kind     TEXT NOT NULL,
  until_at BIGINT,
  message  TEXT,
  since_at BIGINT NOT NULL,
  strikes  INTEGER NOT NULL DEFAULT 1
);
