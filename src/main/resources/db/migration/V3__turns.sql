-- Schema 3: turn history and rolling summaries of prior context (docs/agents.md). Times are epoch ms.

CREATE TABLE turns (
  id             INTEGER PRIMARY KEY,
  item_id        TEXT NOT NULL,
  seq            INTEGER NOT NULL,                 -- 1, 2, 3… per item, in the order the turns happened
  phase          TEXT NOT NULL,
  attempt        INTEGER NOT NULL,
  role           TEXT NOT NULL,                    -- user (the phase task) | assistant (the agent's answer)
  text           TEXT NOT NULL,                    -- size-capped (context.turn_max_chars)
  token_estimate INTEGER NOT NULL,                 -- about chars / 4
  created_at     INTEGER NOT NULL,
  UNIQUE (item_id, seq)
);

CREATE TABLE context_summaries (                   -- one rolling summary per item
  item_id        TEXT PRIMARY KEY,
  text           TEXT NOT NULL,                    -- size-capped (context.summary_max_chars)
  from_seq       INTEGER NOT NULL,                 -- turn range covered: from_seq..to_seq
  to_seq         INTEGER NOT NULL,
  source_count   INTEGER NOT NULL,                 -- turns condensed into it over all generations
  generator      TEXT NOT NULL,                    -- builtin | openai:<model> | command:<program>
  degraded       INTEGER NOT NULL,                 -- 1: the configured summarizer failed, builtin stood in
  token_estimate INTEGER NOT NULL,
  created_at     INTEGER NOT NULL
);
