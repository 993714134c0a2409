-- Version 13: several machines (docs/workspaces.md, "Several machines"). Each runner records the
-- checkout it works in: its identity (a random id kept in the repository's git directory, so two
-- clones differ even at the same path on different machines) and where it is, for status. A local
-- integration (execution.landing: local) is refused while a runner of another checkout is live.
ALTER TABLE runners ADD COLUMN checkout TEXT;
ALTER TABLE runners ADD COLUMN checkout_path TEXT;
-- Where each item's worktree is (host:checkout of the runner that made it) and, with
-- execution.landing: remote, where its work is (remote and ref), for status.
ALTER TABLE workspaces ADD COLUMN checkout TEXT;
ALTER TABLE workspaces ADD COLUMN remote_ref TEXT;
