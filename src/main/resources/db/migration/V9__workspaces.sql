-- Schema 9: a git worktree and branch per item (execution.workspace: worktree; docs/workspaces.md).

-- One row per item that has had a worktree. The row outlives the worktree on disk (removed_at):
-- the branch and its last phase commit are what a later run (after unblock) starts from again.
CREATE TABLE workspaces (
  item_id        TEXT PRIMARY KEY,
  path           TEXT NOT NULL,     -- the worktree, absolute: <state>/worktrees/<ID>
  branch         TEXT NOT NULL,     -- orchestrate/<ID>
  base_branch    TEXT NOT NULL,     -- where it started and where it is integrated
  git_dir        TEXT NOT NULL,     -- the worktree's administrative directory in the repository
  base_commit    TEXT NOT NULL,     -- the base branch's commit the branch started from
  head_commit    TEXT NOT NULL,     -- the last phase commit: every attempt starts from it
  pending_commit TEXT,              -- a phase commit made, whose job is not yet recorded as completed
  pending_job_id INTEGER,
  integration    TEXT,              -- NULL (not yet) | integrated | conflict | deferred | skipped
  note           TEXT,              -- why it is not integrated (conflicting files, local changes)
  bytes          INTEGER NOT NULL DEFAULT 0,  -- bytes on disk of the worktree, measured at creation and commits
  created_at     INTEGER NOT NULL,
  updated_at     INTEGER NOT NULL,
  finished_at    INTEGER,           -- when the item reached done or blocked (retention's max_age counts from it)
  removed_at     INTEGER            -- the worktree is gone from disk; NULL while it exists
);
CREATE INDEX workspaces_live ON workspaces(finished_at) WHERE removed_at IS NULL;

-- The phase commit a completed job produced (NULL: nothing to commit, or a shared workspace).
ALTER TABLE jobs ADD COLUMN commit_sha TEXT;

-- worktrees: rows now = worktrees on disk, bytes = their recorded sizes.
INSERT INTO structures (name) VALUES ('worktrees');
CREATE TRIGGER worktrees_written AFTER INSERT ON workspaces
  BEGIN UPDATE structures SET rows_written = rows_written + 1, bytes = bytes + NEW.bytes WHERE name = 'worktrees'; END;
CREATE TRIGGER worktrees_removed AFTER UPDATE OF removed_at ON workspaces
  WHEN OLD.removed_at IS NULL AND NEW.removed_at IS NOT NULL
  BEGIN UPDATE structures SET rows_pruned = rows_pruned + 1, bytes = bytes - OLD.bytes WHERE name = 'worktrees'; END;
CREATE TRIGGER worktrees_recreated AFTER UPDATE OF removed_at ON workspaces
  WHEN OLD.removed_at IS NOT NULL AND NEW.removed_at IS NULL
  BEGIN UPDATE structures SET rows_written = rows_written + 1, bytes = bytes + NEW.bytes WHERE name = 'worktrees'; END;
CREATE TRIGGER worktrees_bytes AFTER UPDATE OF bytes ON workspaces
  WHEN OLD.removed_at IS NULL AND NEW.removed_at IS NULL
  BEGIN UPDATE structures SET bytes = bytes + NEW.bytes - OLD.bytes WHERE name = 'worktrees'; END;
