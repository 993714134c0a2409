-- Schema 6: retention (docs/how-it-works.md) and the figures `stats` needs to judge it.

-- Whether an event is load-bearing (kept by every compaction: EventLogPolicy), decided in Java
-- when the row is written. Rows written before schema 6 are classified here once, by the same
-- rule written in SQL; after this migration only EventLogPolicy decides.
ALTER TABLE events ADD COLUMN load_bearing INTEGER NOT NULL DEFAULT 0;
UPDATE events SET load_bearing = 1
 WHERE kind LIKE 'memory.%'
    OR kind NOT IN ('item.added', 'item.vanished', 'item.returned', 'item.status', 'phase.result',
                    'summarization:complete', 'summarization:failed')
    OR (kind = 'item.status' AND (json_extract(payload, '$.to') IN ('done', 'blocked')
                                  OR json_extract(payload, '$.from') = 'blocked'))
    OR id = (SELECT MAX(id) FROM events);

-- Rows of a structure that its retention never deletes (load-bearing events), kept by triggers so
-- that `stats` judges the prunable part against max_rows without scanning the table.
ALTER TABLE structures ADD COLUMN kept_rows INTEGER NOT NULL DEFAULT 0;
UPDATE structures SET kept_rows = (SELECT COUNT(*) FROM events WHERE load_bearing = 1) WHERE name = 'events';

CREATE TRIGGER events_kept AFTER INSERT ON events WHEN NEW.load_bearing = 1
  BEGIN UPDATE structures SET kept_rows = kept_rows + 1 WHERE name = 'events'; END;
CREATE TRIGGER events_kept_pruned AFTER DELETE ON events WHEN OLD.load_bearing = 1
  BEGIN UPDATE structures SET kept_rows = kept_rows - 1 WHERE name = 'events'; END;

-- Event retention walks the routine rows oldest first without stepping over the load-bearing ones.
CREATE INDEX events_routine ON events(id) WHERE load_bearing = 0;

-- job_logs: one per job row with a log directory; bytes = the sizes recorded when jobs ended.
UPDATE structures SET rows_written = (SELECT COUNT(*) FROM jobs WHERE log_path IS NOT NULL),
                      bytes = (SELECT COALESCE(SUM(log_bytes), 0) FROM jobs) WHERE name = 'job_logs';
CREATE TRIGGER job_logs_written AFTER INSERT ON jobs WHEN NEW.log_path IS NOT NULL
  BEGIN UPDATE structures SET rows_written = rows_written + 1, bytes = bytes + COALESCE(NEW.log_bytes, 0)
        WHERE name = 'job_logs'; END;
CREATE TRIGGER job_logs_pruned AFTER DELETE ON jobs WHEN OLD.log_path IS NOT NULL
  BEGIN UPDATE structures SET rows_pruned = rows_pruned + 1, bytes = bytes - COALESCE(OLD.log_bytes, 0)
        WHERE name = 'job_logs'; END;
CREATE TRIGGER job_logs_bytes AFTER UPDATE OF log_bytes ON jobs
  BEGIN UPDATE structures SET bytes = bytes + COALESCE(NEW.log_bytes, 0) - COALESCE(OLD.log_bytes, 0)
        WHERE name = 'job_logs'; END;

-- Memories that `compact` never deletes (load-bearing, or superseded and left as they are), so
-- `stats` reads the prunable count as rows now - kept_rows instead of counting millions of rows.
UPDATE structures SET kept_rows = (SELECT COUNT(*) FROM memories WHERE load_bearing = 1 OR superseded_by IS NOT NULL)
 WHERE name = 'memory';
CREATE TRIGGER memory_kept AFTER INSERT ON memories WHEN NEW.load_bearing = 1 OR NEW.superseded_by IS NOT NULL
  BEGIN UPDATE structures SET kept_rows = kept_rows + 1 WHERE name = 'memory'; END;
CREATE TRIGGER memory_kept_pruned AFTER DELETE ON memories WHEN OLD.load_bearing = 1 OR OLD.superseded_by IS NOT NULL
  BEGIN UPDATE structures SET kept_rows = kept_rows - 1 WHERE name = 'memory'; END;
CREATE TRIGGER memory_kept_changed AFTER UPDATE OF load_bearing, superseded_by ON memories
  BEGIN UPDATE structures SET kept_rows = kept_rows
          + (NEW.load_bearing = 1 OR NEW.superseded_by IS NOT NULL) - (OLD.load_bearing = 1 OR OLD.superseded_by IS NOT NULL)
        WHERE name = 'memory'; END;
