-- Schema 23: execution.review_feedback and land: auto (issue 45, docs/workspaces.md, "Review feedback
-- and landing"). Polled with the checks after each push: a review asking for changes sends the item
-- back with what the reviewers wrote, each review and comment once; an approved, green pull request
-- is merged by execution.land_command.
--   review_sent     the keys (ids) of the reviews and comments already sent to the agent, one a line,
--                   at most 500; NULL: none
--   review_rounds   rounds of changes requested so far; review_feedback_max_rounds of them block it
--   land_failures   failures in a row of execution.land_command; three block the item
ALTER TABLE workspaces ADD COLUMN review_sent TEXT;
ALTER TABLE workspaces ADD COLUMN review_rounds INTEGER NOT NULL DEFAULT 0;
ALTER TABLE workspaces ADD COLUMN land_failures INTEGER NOT NULL DEFAULT 0;
