-- A varied state for StatusCommandStreamTest: every status, blocked reasons, met, unmet and
-- unknown dependencies, follow-ups, an item no longer in the backlog file, usage, jobs whose
-- attempts outrun the item's, worktrees in every integration, agent pauses (one over) and events.
-- Written with plain SQL into a state the app created; seq order differs from id order on purpose.
INSERT INTO runs (id, started_at, ended_at, pid, halt_reason) VALUES (1, 1767225600000, 1767229200000, 4242, 'done');

INSERT INTO items (id, seq, title, pipeline, priority, depends_on, tags, description, initial_status, in_backlog,
                   status, phase, attempts, blocked_reason, blocked_from, created_at, updated_at, origin,
                   input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd) VALUES
  ('WRK-2', 1, 'Wire retries', 'feature', 'high', '[]', '["api","net"]', '', 'new', 1,
   'done', NULL, 0, NULL, NULL, 1767225600000, 1767229200000, NULL, 2400, 70, 600, 100, 0.0248000000001),
  ('WRK-1', 2, 'Sandbox the "agent"', 'feature', 'medium', '[]', '[]', '', 'new', 1,
   'blocked', 'code', 2, 'needs the staging key' || char(10) || 'second line: ask ops', 'in_progress',
   1767225600000, 1767229200000, NULL, NULL, NULL, NULL, NULL, NULL),
  ('WRK-10', 3, 'Migrate the billing service to the new ledger and retire the old one', 'feature', 'low',
   '["WRK-1","WRK-2","WRK-99"]', '[]', '', 'new', 1,
   'new', NULL, 0, NULL, NULL, 1767225600000, 1767225600000, NULL, NULL, NULL, NULL, NULL, NULL),
  ('WRK-3', 4, 'Decide ' || char(27) || '[31mred' || char(27) || '[0m', 'feature', 'high', '["WRK-2"]', '["db"]', '',
   'ready', 1, 'in_progress', 'code', 1, NULL, NULL, 1767225600000, 1767229200000, NULL,
   10, 20, NULL, NULL, NULL),
  ('WRK-4', 5, 'Push it', 'feature', 'medium', '[]', '[]', '', 'new', 1,
   'awaiting_checks', 'review', 1, NULL, NULL, 1767225600000, 1767229200000, NULL, NULL, NULL, NULL, NULL, 1.5),
  ('WRK-5', 6, 'Review me', 'feature', 'medium', '["WRK-1"]', '[]', '', 'new', 1,
   'awaiting_review', 'review', 1, NULL, NULL, 1767225600000, 1767229200000, NULL, NULL, NULL, NULL, NULL, NULL),
  ('WRK-6', 7, 'Gone from the file', 'feature', 'low', '[]', '[]', '', 'new', 0,
   'ready', NULL, 0, NULL, NULL, 1767225600000, 1767229200000, NULL, NULL, NULL, NULL, NULL, NULL),
  ('WRK-2/code-1', 8, 'Add jitter', 'feature', 'medium', '["WRK-2"]', '[]', '', 'new', 1,
   'new', NULL, 0, NULL, NULL, 1767225600000, 1767229200000, 'WRK-2/code', NULL, NULL, NULL, NULL, NULL),
  ('WRK-7', 9, 'Deferred', 'feature', 'medium', '[]', '[]', '', 'new', 1,
   'done', NULL, 0, NULL, NULL, 1767225600000, 1767229200000, NULL, NULL, NULL, NULL, NULL, NULL),
  ('WRK-8', 10, 'Scoping', 'feature', 'medium', '["WRK-5"]', '[]', '', 'new', 1,
   'scoping', 'plan', 3, NULL, NULL, 1767225600000, 1767229200000, NULL, NULL, NULL, NULL, NULL, NULL),
  ('WRK-9', 11, 'Left for a pull request', 'feature', 'medium', '[]', '[]', '', 'new', 0,
   'done', NULL, 0, NULL, NULL, 1767225600000, 1767229200000, 'WRK-1/plan', NULL, NULL, NULL, NULL, NULL),
  ('WRK-11', 12, 'Conflicted', 'feature', 'medium', '[]', '[]', '', 'new', 1,
   'blocked', 'code', 1, 'rebase conflict in src/Main.java', 'in_progress', 1767225600000, 1767229200000, NULL,
   NULL, NULL, NULL, NULL, NULL);

INSERT INTO jobs (id, run_id, item_id, phase, attempt, state, result, started_at, ended_at, exit_code, log_path) VALUES
  (1, 1, 'WRK-2', 'plan', 1, 'completed', 'phase_complete', 1767225601000, 1767225602000, 0, 'jobs/1/output.log'),
  (2, 1, 'WRK-2', 'code', 1, 'failed', 'failed', 1767225603000, 1767225604000, 3, 'jobs/2/output.log'),
  (3, 1, 'WRK-2', 'code', 3, 'completed', 'phase_complete', 1767225605000, 1767225606000, 0, 'jobs/3/output.log'),
  (4, 1, 'WRK-1', 'code', 2, 'completed', 'blocked', 1767225607000, 1767225608000, 0, 'jobs/4/output.log'),
  (5, 1, 'WRK-3', 'code', 1, 'completed', 'failed', 1767225609000, 1767225610000, 1, 'jobs/5/output.log'),
  (6, 1, 'WRK-7', 'code', 4, 'completed', 'phase_complete', 1767225611000, 1767225612000, 0, 'jobs/6/output.log');

INSERT INTO workspaces (item_id, path, branch, base_branch, git_dir, base_commit, head_commit, integration, note,
                        bytes, created_at, updated_at, finished_at, removed_at, push_sha, push_url,
                        checks_since, checks_next_at, checks_rounds) VALUES
  ('WRK-2', '/work/project/.orchestrate/worktrees/WRK-2', 'orchestrate/WRK-2', 'main', '/work/project/.git/worktrees/WRK-2',
   '1111111111111111111111111111111111111111', '2222222222222222222222222222222222222222', 'integrated', NULL,
   1024, 1767225600000, 1767229200000, 1767229200000, 1767229300000, NULL, NULL, NULL, NULL, 0),
  ('WRK-3', '/work/project/.orchestrate/worktrees/WRK-3', 'orchestrate/WRK-3', 'main', '/work/project/.git/worktrees/WRK-3',
   '1111111111111111111111111111111111111111', '1111111111111111111111111111111111111111', NULL, NULL,
   1024, 1767225600000, 1767229200000, NULL, NULL, NULL, NULL, NULL, NULL, 0),
  ('WRK-4', '/work/project/.orchestrate/worktrees/WRK-4', 'orchestrate/WRK-4', 'main', '/work/project/.git/worktrees/WRK-4',
   '1111111111111111111111111111111111111111', '4444444444444444444444444444444444444444', 'pushed', NULL,
   1024, 1767225600000, 1767229200000, NULL, NULL, '4444444444444444444444444444444444444444',
   'https://example.com/pr/4', 1767229000000, 1767229500000, 2),
  ('WRK-7', '/work/project/.orchestrate/worktrees/WRK-7', 'orchestrate/WRK-7', 'main', '/work/project/.git/worktrees/WRK-7',
   '1111111111111111111111111111111111111111', '7777777777777777777777777777777777777777', 'deferred',
   'local changes in the checkout of main' || char(10) || 'commit or stash them', 1024, 1767225600000, 1767229200000,
   1767229200000, NULL, NULL, NULL, NULL, NULL, 0),
  ('WRK-9', '/work/project/.orchestrate/worktrees/WRK-9', 'orchestrate/WRK-9', 'main', '/work/project/.git/worktrees/WRK-9',
   '1111111111111111111111111111111111111111', '9999999999999999999999999999999999999999', 'skipped', NULL,
   1024, 1767225600000, 1767229200000, 1767229200000, NULL, NULL, NULL, NULL, NULL, 0),
  ('WRK-11', '/work/project/.orchestrate/worktrees/WRK-11', 'orchestrate/WRK-11', 'main', '/work/project/.git/worktrees/WRK-11',
   '1111111111111111111111111111111111111111', 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb', 'conflict', 'src/Main.java',
   1024, 1767225600000, 1767229200000, 1767229200000, NULL, NULL, NULL, NULL, NULL, 0),
  ('WRK-0', '/work/project/.orchestrate/worktrees/WRK-0', 'orchestrate/WRK-0', 'main', '/work/project/.git/worktrees/WRK-0',
   '1111111111111111111111111111111111111111', '0000000000000000000000000000000000000000', 'deferred', 'a worktree whose item is gone',
   1024, 1767225600000, 1767229200000, 1767229200000, NULL, NULL, NULL, NULL, NULL, 0);

INSERT INTO agent_pauses (profile, kind, until_at, message, since_at, strikes) VALUES
  ('claude', 'usage_limit', 4102444800000, 'You have hit your limit · resets 3am', 1767225600000, 2),
  ('codex', 'rate_limited', 1767225700000, 'over', 1767225600000, 1);

INSERT INTO events (at, item_id, kind, payload) VALUES
  (1767225600000, 'WRK-2', 'item.added', '{}'),
  (1767229200000, 'WRK-2', 'item.status', '{"from":"in_progress","to":"done"}'),
  (1767229200000, 'WRK-1', 'item.status', '{"from":"in_progress","to":"blocked"}');
