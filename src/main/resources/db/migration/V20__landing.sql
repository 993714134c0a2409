-- Schema 20: the merge queue (the merge-queue issue, docs/verification.md "What lands").
--   landing_rounds  how many times the item's integration gates were red on its work as it would
--                   land, since it last landed; past integration_max_rounds it is blocked
--   landing_fold    after a red round, the base commit the item's work was rebased onto: its next
--                   phase commit folds everything since into one commit on it, so that the red
--                   state never lands as a commit of its own; cleared once that commit is the head
ALTER TABLE workspaces ADD COLUMN landing_rounds INTEGER NOT NULL DEFAULT 0;
ALTER TABLE workspaces ADD COLUMN landing_fold TEXT;
