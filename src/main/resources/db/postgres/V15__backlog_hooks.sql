-- Version 15: the transition commands of backlog.source called for an item's present stay in a status
-- (the SQLite schema's V23__backlog_hooks.sql has the comments).
CREATE TABLE backlog_hooks (
  item_id    TEXT NOT NULL,
  hook       TEXT NOT NULL,
  called_at  BIGINT NOT NULL,
  PRIMARY KEY (item_id, hook)
);
