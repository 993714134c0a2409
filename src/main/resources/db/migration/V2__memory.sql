-- Schema 2: project memory (docs/how-it-works.md). Times are epoch milliseconds (UTC).

CREATE TABLE memories (
  seq           INTEGER PRIMARY KEY,               -- insertion order; compaction keeps the highest
  id            TEXT NOT NULL,                     -- unique (memories_id); given by the writer, or generated (m-<seq>)
  kind          TEXT NOT NULL,                     -- semantic | procedural | episodic
  title         TEXT NOT NULL DEFAULT '',
  content       TEXT NOT NULL,                     -- capped at write time (see README)
  tags          TEXT NOT NULL DEFAULT '[]',        -- JSON array of strings
  source_item   TEXT,                              -- the backlog item it came from, if any
  created_at    INTEGER NOT NULL,
  superseded_by TEXT,                              -- id of the replacement; null while active
  load_bearing  INTEGER NOT NULL                   -- 1 when MemoryItem.isLoadBearing() held at write time
);
-- A named index rather than a UNIQUE constraint: a large compaction drops and rebuilds it (see
-- SqliteMemoryRepository.compact), which is much cheaper than deleting a million entries from it.
CREATE UNIQUE INDEX memories_id ON memories(id);
-- The prunable set of compaction (active, not load-bearing) and the boot context's load-bearing set,
-- each in insertion order, without scanning the whole table.
CREATE INDEX memories_prunable ON memories(seq) WHERE load_bearing = 0 AND superseded_by IS NULL;
CREATE INDEX memories_load_bearing ON memories(seq) WHERE load_bearing = 1 AND superseded_by IS NULL;
