-- Schema 11: verified work (issue 29; docs/verification.md). The project commands each job ran
-- (workspace set-up before the agent, verify: gates after it), the agent's session of each job,
-- the session an item's next attempt may continue, and when a worktree's set-up last succeeded.

-- The agent CLI's session id (NULL: it printed none) and how the attempt began:
-- fresh | resumed | fresh_after_failed_resume. NULL for jobs recorded before schema 11.
ALTER TABLE jobs ADD COLUMN session_id TEXT;
ALTER TABLE jobs ADD COLUMN session_start TEXT;
-- What a resumed session's earlier jobs reported (CLIs that report running totals): by session.
CREATE INDEX jobs_by_session ON jobs(session_id) WHERE session_id IS NOT NULL;

-- One row per project command a job ran, in order. Bounded by the jobs (retention deletes a job's
-- rows with it) times the commands the config names (workspace.setup plus one phase's verify:).
CREATE TABLE job_checks (
  job_id      INTEGER NOT NULL,
  seq         INTEGER NOT NULL,          -- 1, 2, … in the order they ran
  kind        TEXT NOT NULL,             -- setup | gate
  name        TEXT NOT NULL,
  exit_code   INTEGER,                   -- NULL: it never started, or was stopped
  ending      TEXT NOT NULL,             -- passed | failed | timed_out | spawn_failed | cancelled
  duration_ms INTEGER NOT NULL,
  log_file    TEXT,                      -- its log's file name in the job's directory
  PRIMARY KEY (job_id, seq)
);

-- The session the item's next attempt of its phase may continue (docs/verification.md): the
-- agent profile that holds it and the CLI's id. NULL: the next attempt starts fresh.
ALTER TABLE items ADD COLUMN resume_profile TEXT;
ALTER TABLE items ADD COLUMN resume_session TEXT;

-- When workspace.setup last succeeded in this worktree (epoch ms); NULL: it has yet to run.
ALTER TABLE workspaces ADD COLUMN setup_at INTEGER;
