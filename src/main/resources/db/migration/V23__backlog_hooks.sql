-- Schema 23: the transition commands of backlog.source (issue 47, docs/backlog.md, "A backlog from a
-- command") called for an item's present stay in a status, so that a restarted run calls none twice.
-- A row is deleted when its item leaves the status. One row per item and hook at most.
--   hook       on_done | on_blocked | on_awaiting_review
--   called_at  when the command exited 0 (epoch ms)
CREATE TABLE backlog_hooks (
  item_id    TEXT NOT NULL,
  hook       TEXT NOT NULL,
  called_at  INTEGER NOT NULL,
  PRIMARY KEY (item_id, hook)
);
