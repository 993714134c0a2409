-- Schema 5: growth accounting, retention and stats (docs/how-it-works.md: retention, size caps, stats). Times are epoch ms.

-- One row per bounded structure. Triggers below keep rows_written and rows_pruned exact for the
-- SQLite tables, so `stats` reads "rows now" as rows_written - rows_pruned without a COUNT(*)
-- over millions of rows. job_logs (the per-job directories on disk) is counted by the code that
-- creates and deletes them, with their size in bytes.
CREATE TABLE structures (
  name             TEXT PRIMARY KEY,   -- items | events | turns | summaries | jobs | memory | stats_samples | job_logs
  rows_written     INTEGER NOT NULL DEFAULT 0,  -- lifetime: rows ever written (survives pruning)
  rows_pruned      INTEGER NOT NULL DEFAULT 0,  -- lifetime: rows deleted by retention or compact
  last_pruned_at   INTEGER,                     -- set by the code that prunes (settable clock)
  truncated_writes INTEGER NOT NULL DEFAULT 0,  -- values cut to their size cap when written
  bytes            INTEGER NOT NULL DEFAULT 0,  -- job_logs only: bytes on disk of the kept job dirs
  max_rows         INTEGER,                     -- the retention policy last applied; NULL: no row limit
  max_age_ms       INTEGER,                     -- NULL: no age limit
  cursor           INTEGER NOT NULL DEFAULT 0   -- incremental maintenance resumes after this row id
);

INSERT INTO structures (name, rows_written) VALUES
  ('items',         (SELECT COUNT(*) FROM items)),
  ('events',        (SELECT COUNT(*) FROM events)),
  ('turns',         (SELECT COUNT(*) FROM turns)),
  ('summaries',     (SELECT COUNT(*) FROM context_summaries)),
  ('jobs',          (SELECT COUNT(*) FROM jobs)),
  ('memory',        (SELECT COUNT(*) FROM memories)),
  ('stats_samples', 0),
  ('job_logs',      (SELECT COUNT(*) FROM jobs WHERE log_path IS NOT NULL));

-- A sample of every structure's size, recorded once per run maintenance interval, per `stats` and
-- per `compact`; the trend in `stats` is computed from them. Bounded by retention.stats_samples.
CREATE TABLE stats_samples (
  id       INTEGER PRIMARY KEY,
  at       INTEGER NOT NULL,
  source   TEXT NOT NULL,                -- run | stats | compact
  db_bytes INTEGER NOT NULL,             -- database file + WAL
  rows     TEXT NOT NULL                 -- JSON object: structure name -> rows now
);

-- The last run's in-memory figures (docs/architecture.md: summary map, job table), written at its end.
ALTER TABLE runs ADD COLUMN summary_map_peak INTEGER;
ALTER TABLE runs ADD COLUMN summary_map_final INTEGER;
ALTER TABLE runs ADD COLUMN job_table_peak_active INTEGER;
ALTER TABLE runs ADD COLUMN job_table_peak_inactive INTEGER;
ALTER TABLE runs ADD COLUMN job_table_final INTEGER;

-- Size of the job's directory (output.log, prompt, result) when it ended; job_logs.bytes is the sum.
ALTER TABLE jobs ADD COLUMN log_bytes INTEGER;

CREATE TRIGGER items_written AFTER INSERT ON items
  BEGIN UPDATE structures SET rows_written = rows_written + 1 WHERE name = 'items'; END;
CREATE TRIGGER items_pruned AFTER DELETE ON items
  BEGIN UPDATE structures SET rows_pruned = rows_pruned + 1 WHERE name = 'items'; END;
CREATE TRIGGER events_written AFTER INSERT ON events
  BEGIN UPDATE structures SET rows_written = rows_written + 1 WHERE name = 'events'; END;
CREATE TRIGGER events_pruned AFTER DELETE ON events
  BEGIN UPDATE structures SET rows_pruned = rows_pruned + 1 WHERE name = 'events'; END;
CREATE TRIGGER turns_written AFTER INSERT ON turns
  BEGIN UPDATE structures SET rows_written = rows_written + 1 WHERE name = 'turns'; END;
CREATE TRIGGER turns_pruned AFTER DELETE ON turns
  BEGIN UPDATE structures SET rows_pruned = rows_pruned + 1 WHERE name = 'turns'; END;
CREATE TRIGGER summaries_written AFTER INSERT ON context_summaries
  BEGIN UPDATE structures SET rows_written = rows_written + 1 WHERE name = 'summaries'; END;
CREATE TRIGGER summaries_pruned AFTER DELETE ON context_summaries
  BEGIN UPDATE structures SET rows_pruned = rows_pruned + 1 WHERE name = 'summaries'; END;
CREATE TRIGGER jobs_written AFTER INSERT ON jobs
  BEGIN UPDATE structures SET rows_written = rows_written + 1 WHERE name = 'jobs'; END;
CREATE TRIGGER jobs_pruned AFTER DELETE ON jobs
  BEGIN UPDATE structures SET rows_pruned = rows_pruned + 1 WHERE name = 'jobs'; END;
CREATE TRIGGER memory_written AFTER INSERT ON memories
  BEGIN UPDATE structures SET rows_written = rows_written + 1 WHERE name = 'memory'; END;
CREATE TRIGGER memory_pruned AFTER DELETE ON memories
  BEGIN UPDATE structures SET rows_pruned = rows_pruned + 1 WHERE name = 'memory'; END;
CREATE TRIGGER stats_samples_written AFTER INSERT ON stats_samples
  BEGIN UPDATE structures SET rows_written = rows_written + 1 WHERE name = 'stats_samples'; END;
CREATE TRIGGER stats_samples_pruned AFTER DELETE ON stats_samples
  BEGIN UPDATE structures SET rows_pruned = rows_pruned + 1 WHERE name = 'stats_samples'; END;
