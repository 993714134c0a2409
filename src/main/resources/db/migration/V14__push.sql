-- Schema 14: execution.merge: push (issue 32). A done item's branch is pushed to execution.remote
-- instead of being integrated into the base branch, and execution.pull_request may open a pull
-- request for it. What the push did, per item:
--   push_sha       the commit of the item's branch last pushed (NULL: not pushed yet)
--   push_url       the last http(s) URL the pull_request command printed (NULL: none, or no command);
--                  once set, the command is not run again for the item
--   push_failures  failed push or pull_request attempts in a row (0 after a success); the retry
--                  waits 30 s doubling to 30 min after each, and the eighth blocks the item
--   push_tried_at  when the last attempt ended (epoch ms), the start of the retry's wait
-- The failure's message (output tail, credentials masked) is workspaces.note, as for a deferral.
ALTER TABLE workspaces ADD COLUMN push_sha TEXT;
ALTER TABLE workspaces ADD COLUMN push_url TEXT;
ALTER TABLE workspaces ADD COLUMN push_failures INTEGER NOT NULL DEFAULT 0;
ALTER TABLE workspaces ADD COLUMN push_tried_at INTEGER;
