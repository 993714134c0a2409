-- Schema 10: each job's outcome class, and the agent profiles a provider's limit paused (issue 28;
-- docs/agents.md, "Provider limits").

-- succeeded | failed | blocked | usage_limit | rate_limited | auth | denied | stalled | timed_out |
-- cancelled | spawn_failed; NULL for a job that is running, or was recorded before schema 10.
ALTER TABLE jobs ADD COLUMN outcome TEXT;

-- The agent profile that ran the job (agents: in the config; the agent: block's is named by its
-- preset); NULL for a job recorded before schema 10.
ALTER TABLE jobs ADD COLUMN agent TEXT;

-- One row per agent profile that a usage limit or a rate limit paused; removed when it works again.
-- Bounded by the number of profiles the config names.
CREATE TABLE agent_pauses (
  profile  TEXT PRIMARY KEY,
  kind     TEXT NOT NULL,              -- usage_limit | rate_limited
  until_at INTEGER,                    -- epoch ms when work may start again; NULL: unknown
  message  TEXT,                       -- what the agent CLI said
  since_at INTEGER NOT NULL,           -- epoch ms of the first limited attempt of this pause
  strikes  INTEGER NOT NULL DEFAULT 1  -- limited attempts in a row: the backoff's step
);
