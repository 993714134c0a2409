-- Schema 1 of the orchestrate state database. Times are epoch milliseconds (UTC).
-- Read-only queries with the sqlite3 tool are safe at any time; see docs/schema.md.

CREATE TABLE items (
  id             TEXT PRIMARY KEY,
  seq            INTEGER NOT NULL UNIQUE,          -- backlog order, fixed when first seen
  title          TEXT NOT NULL,
  pipeline       TEXT NOT NULL,
  priority       TEXT NOT NULL,                    -- high | medium | low
  depends_on     TEXT NOT NULL DEFAULT '[]',       -- JSON array of item ids
  tags           TEXT NOT NULL DEFAULT '[]',       -- JSON array of strings
  description    TEXT NOT NULL DEFAULT '',
  initial_status TEXT NOT NULL DEFAULT 'new',      -- the backlog's status hint
  in_backlog     INTEGER NOT NULL DEFAULT 1,       -- 0: no longer listed in the backlog file
  status         TEXT NOT NULL,                    -- new | scoping | ready | in_progress | done | blocked
  phase          TEXT,                             -- current phase (or the phase it was blocked in)
  attempts       INTEGER NOT NULL DEFAULT 0,       -- attempts already made on the current phase
  blocked_reason TEXT,
  blocked_from   TEXT,                             -- status to restore on unblock
  last_failure   TEXT,                             -- failure context for the next attempt's prompt
  phase_summary  TEXT,                             -- latest successful phase summary (active items only)
  unblock_notes  TEXT,
  created_at     INTEGER NOT NULL,
  updated_at     INTEGER NOT NULL
);

CREATE TABLE runs (
  id          INTEGER PRIMARY KEY,
  started_at  INTEGER NOT NULL,
  ended_at    INTEGER,
  pid         INTEGER NOT NULL,
  halt_reason TEXT                                 -- null while running or after a crash
);

CREATE TABLE jobs (
  id         INTEGER PRIMARY KEY,
  run_id     INTEGER NOT NULL,
  item_id    TEXT NOT NULL,
  phase      TEXT NOT NULL,
  attempt    INTEGER NOT NULL,
  state      TEXT NOT NULL,                        -- running | completed | failed | cancelled | interrupted
  result     TEXT,                                 -- phase_complete | subphase_complete | failed | blocked
  started_at INTEGER NOT NULL,
  ended_at   INTEGER,
  exit_code  INTEGER,
  log_path   TEXT,
  reason     TEXT
);
CREATE INDEX jobs_by_item ON jobs(item_id, id);
CREATE INDEX jobs_running ON jobs(state) WHERE state = 'running';

CREATE TABLE events (
  id      INTEGER PRIMARY KEY,
  at      INTEGER NOT NULL,
  item_id TEXT,
  kind    TEXT NOT NULL,                           -- item.added, item.status, phase.result, ...
  payload TEXT NOT NULL DEFAULT '{}'               -- JSON object
);
CREATE INDEX events_by_item ON events(item_id, id);
