-- Job usage (issue 15): what each agent attempt consumed, as the agent reported it. NULL: not
-- reported (a plain command, a CLI that reports no cost), never 0. input_tokens counts fresh
-- input; cache reads and writes are apart.
ALTER TABLE jobs ADD COLUMN input_tokens INTEGER;
ALTER TABLE jobs ADD COLUMN output_tokens INTEGER;
ALTER TABLE jobs ADD COLUMN cache_read_tokens INTEGER;
ALTER TABLE jobs ADD COLUMN cache_write_tokens INTEGER;
ALTER TABLE jobs ADD COLUMN cost_usd REAL;

-- Per item, over every job it ever had: job history is pruned, these are not.
ALTER TABLE items ADD COLUMN input_tokens INTEGER;
ALTER TABLE items ADD COLUMN output_tokens INTEGER;
ALTER TABLE items ADD COLUMN cache_read_tokens INTEGER;
ALTER TABLE items ADD COLUMN cache_write_tokens INTEGER;
ALTER TABLE items ADD COLUMN cost_usd REAL;

-- Each run's spend and the budget it ran under, written at its end (stats: spend against budget).
ALTER TABLE runs ADD COLUMN input_tokens INTEGER;
ALTER TABLE runs ADD COLUMN output_tokens INTEGER;
ALTER TABLE runs ADD COLUMN cache_read_tokens INTEGER;
ALTER TABLE runs ADD COLUMN cache_write_tokens INTEGER;
ALTER TABLE runs ADD COLUMN cost_usd REAL;
ALTER TABLE runs ADD COLUMN max_cost_usd REAL;
ALTER TABLE runs ADD COLUMN max_tokens INTEGER;

-- Lifetime totals (one row), kept by the trigger below like the structures' counters: pruning
-- job history never lowers them.
CREATE TABLE usage_totals (
  id                 INTEGER PRIMARY KEY CHECK (id = 1),
  jobs_reported      INTEGER NOT NULL DEFAULT 0,   -- jobs whose agent reported any usage
  input_tokens       INTEGER,
  output_tokens      INTEGER,
  cache_read_tokens  INTEGER,
  cache_write_tokens INTEGER,
  cost_usd           REAL
);
INSERT INTO usage_totals (id) VALUES (1);

-- A job's usage is written once, when it ends; the deltas keep a rewrite exact all the same. A
-- figure stays NULL until some job reports it.
CREATE TRIGGER jobs_usage AFTER UPDATE OF input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd ON jobs
BEGIN
  UPDATE usage_totals SET
    jobs_reported = jobs_reported
      + (CASE WHEN COALESCE(OLD.input_tokens, OLD.output_tokens, OLD.cache_read_tokens, OLD.cache_write_tokens, OLD.cost_usd) IS NULL
               AND COALESCE(NEW.input_tokens, NEW.output_tokens, NEW.cache_read_tokens, NEW.cache_write_tokens, NEW.cost_usd) IS NOT NULL
              THEN 1 ELSE 0 END),
    input_tokens = CASE WHEN NEW.input_tokens IS NULL AND OLD.input_tokens IS NULL THEN input_tokens
      ELSE COALESCE(input_tokens, 0) + COALESCE(NEW.input_tokens, 0) - COALESCE(OLD.input_tokens, 0) END,
    output_tokens = CASE WHEN NEW.output_tokens IS NULL AND OLD.output_tokens IS NULL THEN output_tokens
      ELSE COALESCE(output_tokens, 0) + COALESCE(NEW.output_tokens, 0) - COALESCE(OLD.output_tokens, 0) END,
    cache_read_tokens = CASE WHEN NEW.cache_read_tokens IS NULL AND OLD.cache_read_tokens IS NULL THEN cache_read_tokens
      ELSE COALESCE(cache_read_tokens, 0) + COALESCE(NEW.cache_read_tokens, 0) - COALESCE(OLD.cache_read_tokens, 0) END,
    cache_write_tokens = CASE WHEN NEW.cache_write_tokens IS NULL AND OLD.cache_write_tokens IS NULL THEN cache_write_tokens
      ELSE COALESCE(cache_write_tokens, 0) + COALESCE(NEW.cache_write_tokens, 0) - COALESCE(OLD.cache_write_tokens, 0) END,
    cost_usd = CASE WHEN NEW.cost_usd IS NULL AND OLD.cost_usd IS NULL THEN cost_usd
      ELSE COALESCE(cost_usd, 0) + COALESCE(NEW.cost_usd, 0) - COALESCE(OLD.cost_usd, 0) END
  WHERE id = 1;
  UPDATE items SET
    input_tokens = CASE WHEN NEW.input_tokens IS NULL AND OLD.input_tokens IS NULL THEN input_tokens
      ELSE COALESCE(input_tokens, 0) + COALESCE(NEW.input_tokens, 0) - COALESCE(OLD.input_tokens, 0) END,
    output_tokens = CASE WHEN NEW.output_tokens IS NULL AND OLD.output_tokens IS NULL THEN output_tokens
      ELSE COALESCE(output_tokens, 0) + COALESCE(NEW.output_tokens, 0) - COALESCE(OLD.output_tokens, 0) END,
    cache_read_tokens = CASE WHEN NEW.cache_read_tokens IS NULL AND OLD.cache_read_tokens IS NULL THEN cache_read_tokens
      ELSE COALESCE(cache_read_tokens, 0) + COALESCE(NEW.cache_read_tokens, 0) - COALESCE(OLD.cache_read_tokens, 0) END,
    cache_write_tokens = CASE WHEN NEW.cache_write_tokens IS NULL AND OLD.cache_write_tokens IS NULL THEN cache_write_tokens
      ELSE COALESCE(cache_write_tokens, 0) + COALESCE(NEW.cache_write_tokens, 0) - COALESCE(OLD.cache_write_tokens, 0) END,
    cost_usd = CASE WHEN NEW.cost_usd IS NULL AND OLD.cost_usd IS NULL THEN cost_usd
      ELSE COALESCE(cost_usd, 0) + COALESCE(NEW.cost_usd, 0) - COALESCE(OLD.cost_usd, 0) END
  WHERE id = NEW.item_id;
END;
