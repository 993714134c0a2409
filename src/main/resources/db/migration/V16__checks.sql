-- Schema 16: execution.checks (issue 32, docs/workspaces.md). After merge: push pushed an item's
-- branch, the item awaits its checks: the command is polled until it says green (the item is done),
-- red (the item goes back to execution.checks_phase with the report) or checks_timeout passes.
--   checks_since    when the item's current wait began (epoch ms; the push); NULL: no wait
--   checks_next_at  when the command is polled next (epoch ms); a restarted run resumes from it
--   checks_rounds   red reports so far for the item; checks_max_rounds of them block it
ALTER TABLE workspaces ADD COLUMN checks_since INTEGER;
ALTER TABLE workspaces ADD COLUMN checks_next_at INTEGER;
ALTER TABLE workspaces ADD COLUMN checks_rounds INTEGER NOT NULL DEFAULT 0;
