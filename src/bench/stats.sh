#!/usr/bin/env bash
# `orchestrate stats --json` on a freshly created state database and on one holding 10,000,000
# rows across its tables, whole-process wall time through the launcher, side by side in one
# hyperfine run (alternating). stats reads counters, pragmas and primary-key look-ups only, so
# the two should differ by little more than the page cache.
#
# Usage: src/bench/stats.sh [ROWS_MILLIONS] [RUNS]   (default 10 million rows, 20 runs)
#   after ./mvnw -q -DskipTests package; needs sqlite3 and hyperfine (apt-get install -y sqlite3 hyperfine).
#   BENCH_DIR=dir keeps the databases there (and reuses a large one already built).
set -euo pipefail
home=$(cd -P "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
millions=${1:-10}
runs=${2:-20}
launcher=$home/bin/orchestrate
[ -f "$home/target/orchestrate.jar" ] || { echo "build first: ./mvnw -q -DskipTests package" >&2; exit 2; }
command -v sqlite3 >/dev/null || { echo "needs sqlite3: apt-get install -y sqlite3" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "needs hyperfine: apt-get install -y hyperfine" >&2; exit 2; }

if [ -n "${BENCH_DIR:-}" ]; then work=$BENCH_DIR; mkdir -p "$work"; else work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
ms() { echo $((($(date +%s%N) - $1) / 1000000)); }

# A state database as orchestrate creates it (migrated, one memory).
rm -rf "$work/empty"
"$launcher" --quiet --state "$work/empty" memory add --kind semantic "We use Postgres 16" >/dev/null

n=$((millions * 100000)) # rows per tenth: items 1, jobs 2, turns 3, events 3, memories 1
if [ ! -f "$work/large/state.db" ] || [ "$(cat "$work/large/rows" 2>/dev/null)" != "$millions" ]; then
  rm -rf "$work/large"
  cp -r "$work/empty" "$work/large"
  t0=$(date +%s%N)
  # Through the schema's triggers, so the lifetime counters are exact, as after a real run.
  sqlite3 "$work/large/state.db" <<SQL
PRAGMA journal_mode = WAL;
PRAGMA synchronous = OFF;
BEGIN;
WITH RECURSIVE i(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM i WHERE x < $n)
INSERT INTO items (id, seq, title, pipeline, priority, status, created_at, updated_at)
SELECT printf('I%08d', x), x, 'item ' || x, 'feature', 'medium', 'done', x, x FROM i;
WITH RECURSIVE i(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM i WHERE x < 2 * $n)
INSERT INTO jobs (run_id, item_id, phase, attempt, state, result, started_at, ended_at, exit_code, log_path, log_bytes)
SELECT 1, printf('I%08d', (x + 1) / 2), 'build', 1, 'completed', 'phase_complete', x, x + 1, 0, NULL, NULL FROM i;
WITH RECURSIVE i(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM i WHERE x < 3 * $n)
INSERT INTO turns (item_id, seq, phase, attempt, role, text, token_estimate, created_at)
SELECT printf('I%08d', (x + 2) / 3), (x + 2) % 3 + 1, 'build', 1, 'assistant', 'result: phase_complete; changed src/App.java', 11, x FROM i;
WITH RECURSIVE i(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM i WHERE x < 3 * $n)
INSERT INTO events (at, item_id, kind, payload, load_bearing)
SELECT x, printf('I%08d', (x + 2) / 3), CASE WHEN x % 3 = 0 THEN 'item.status' ELSE 'phase.result' END,
       CASE WHEN x % 3 = 0 THEN '{"from":"in_progress","to":"done"}' ELSE '{"result":"phase_complete"}' END,
       x % 3 = 0 FROM i;
WITH RECURSIVE i(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM i WHERE x < $n)
INSERT INTO memories (id, kind, title, content, tags, source_item, created_at, load_bearing)
SELECT 'ep-' || x, 'episodic', printf('I%08d done', x), 'implemented the change, tests green', '["outcome"]',
       printf('I%08d', x), x, 0 FROM i;
COMMIT;
PRAGMA wal_checkpoint(TRUNCATE);
SQL
  echo "$millions" >"$work/large/rows"
  echo "built the large database in $(ms "$t0") ms"
fi
rows=$(sqlite3 "$work/large/state.db" "SELECT SUM(rows_written - rows_pruned) FROM structures")
echo "java: $(java -version 2>&1 | head -n 1); sqlite3: $(sqlite3 --version | cut -d' ' -f1); cpus: $(nproc)"
echo "empty: $(stat -c %s "$work/empty/state.db") bytes; large: $(stat -c %s "$work/large/state.db") bytes, $rows rows"
hyperfine -N --warmup 3 --runs "$runs" --export-markdown "$work/result.md" \
  -n "stats --json, fresh database" "$launcher --state $work/empty stats --json" \
  -n "stats --json, $rows rows" "$launcher --state $work/large stats --json" >/dev/null
cat "$work/result.md"
