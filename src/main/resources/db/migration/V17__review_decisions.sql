-- Schema 17: approve and reject beside a running run (issue 32, docs/review.md). While a run holds
-- the state, the commands queue their decisions here; the run applies each on a tick through its
-- own commit path and deletes it in the same transaction as the change it caused.
--   decision      approve | reject
--   notes         a rejection's notes for the agent (already capped as unblock's are); NULL for approve
--   phase         the phase a rejection sends the item back to
--   requested_at  when the command queued it (epoch ms)
-- AUTOINCREMENT: an id is never reused, so a command waiting for its decision never mistakes another's.
CREATE TABLE review_decisions (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  item_id       TEXT NOT NULL,
  decision      TEXT NOT NULL,
  notes         TEXT,
  phase         TEXT,
  requested_at  INTEGER NOT NULL
);
