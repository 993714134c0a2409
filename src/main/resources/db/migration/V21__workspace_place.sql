-- Version 21: several machines (docs/workspaces.md, "Several machines"). Where each item's
-- worktree is (host:checkout of the runner that made it) and, with execution.landing: remote,
-- where its work is (the remote and ref its phase commits are pushed to), for status.
ALTER TABLE workspaces ADD COLUMN checkout TEXT;
ALTER TABLE workspaces ADD COLUMN remote_ref TEXT;
