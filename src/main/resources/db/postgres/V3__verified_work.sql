-- Version 3: verified work (issue 29; the SQLite schema's V11__verified_work.sql has the comments).
ALTER TABLE jobs ADD COLUMN session_id TEXT;
ALTER TABLE jobs ADD COLUMN session_start TEXT;
CREATE INDEX jobs_by_session ON jobs(session_id) WHERE session_id IS NOT NULL;

CREATE TABLE job_checks (
  job_id      BIGINT NOT NULL,
  seq         INTEGER NOT NULL,
  kind        TEXT NOT NULL,
  name        TEXT NOT NULL,
  exit_code   INTEGER,
  ending      TEXT NOT NULL,
  duration_ms BIGINT NOT NULL,
  log_file    TEXT,
  PRIMARY KEY (job_id, seq)
);

ALTER TABLE items ADD COLUMN resume_profile TEXT;
ALTER TABLE items ADD COLUMN resume_session TEXT;

ALTER TABLE workspaces ADD COLUMN setup_at BIGINT;
