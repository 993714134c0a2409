#!/usr/bin/env bash
# One retention maintenance pass (what a run does once per retention.maintenance_interval, and
# `compact --incremental` does once) on a state database whose jobs, turns and events tables each
# hold 10,000 rows, and on one where each holds 1,000,000, every row old enough to be pruned.
# Each round copies both databases afresh and times the whole process and the pass itself
# (pass_ms, measured inside the process). The pass deletes retention.budget (500) rows per
# structure either way, so its cost should not depend on the table size.
#
# Usage: src/bench/maintenance.sh [ROUNDS]   (default 5)
#   after ./mvnw -q -DskipTests package; needs sqlite3 (apt-get install -y sqlite3).
set -euo pipefail
home=$(cd -P "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
rounds=${1:-5}
launcher=$home/bin/orchestrate
[ -f "$home/target/orchestrate.jar" ] || { echo "build first: ./mvnw -q -DskipTests package" >&2; exit 2; }
command -v sqlite3 >/dev/null || { echo "needs sqlite3: apt-get install -y sqlite3" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ms() { echo $((($(date +%s%N) - $1) / 1000000)); }

cat >"$work/orchestrate.yaml" <<'YAML'
retention:
  budget: 500
  jobs: {max_rows: 1000, max_age: 30d}
  turns: {max_rows: 1000, max_age: 30d}
  events: {max_rows: 1000, max_age: 30d}
  stats_samples: {max_rows: 100}
YAML

build() { # name rows-per-table
  "$launcher" --quiet --state "$work/$1" memory add --kind semantic "seed" >/dev/null
  local n=$2 items=$(($2 / 3))
  sqlite3 "$work/$1/state.db" <<SQL
PRAGMA journal_mode = WAL;
PRAGMA synchronous = OFF;
BEGIN;
WITH RECURSIVE i(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM i WHERE x < $items)
INSERT INTO items (id, seq, title, pipeline, priority, status, created_at, updated_at)
SELECT printf('I%08d', x), x, 'item ' || x, 'feature', 'medium', 'done', x, x FROM i;
WITH RECURSIVE i(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM i WHERE x < $n)
INSERT INTO jobs (run_id, item_id, phase, attempt, state, result, started_at, ended_at, exit_code)
SELECT 1, printf('I%08d', (x + 2) / 3), 'build', 1, 'completed', 'phase_complete', x, x + 1, 0 FROM i;
WITH RECURSIVE i(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM i WHERE x < $n)
INSERT INTO turns (item_id, seq, phase, attempt, role, text, token_estimate, created_at)
SELECT printf('I%08d', (x + 2) / 3), (x + 2) % 3 + 1, 'build', 1, 'assistant', 'result: phase_complete; changed src/App.java', 11, x FROM i;
WITH RECURSIVE i(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM i WHERE x < $n)
INSERT INTO events (at, item_id, kind, payload, load_bearing)
SELECT x, printf('I%08d', (x + 2) / 3), 'phase.result', '{"result":"phase_complete"}', 0 FROM i;
COMMIT;
PRAGMA wal_checkpoint(TRUNCATE);
SQL
}
build small 10000
build large 1000000
echo "java: $(java -version 2>&1 | head -n 1); cpus: $(nproc)"
echo "small: $(stat -c %s "$work/small/state.db") bytes; large: $(stat -c %s "$work/large/state.db") bytes"
printf '| round | 10k rows: process ms | 10k: pass_ms | 1M rows: process ms | 1M: pass_ms |\n|---|---|---|---|---|\n'
for r in $(seq "$rounds"); do
  for db in small large; do
    rm -rf "$work/run-$db"; cp -r "$work/$db" "$work/run-$db"
  done
  sync
  for db in $(if [ $((r % 2)) = 1 ]; then echo small large; else echo large small; fi); do
    t0=$(date +%s%N)
    json=$("$launcher" --quiet --state "$work/run-$db" --config "$work/orchestrate.yaml" compact --incremental --json)
    eval "${db}_ms=$(ms "$t0")"
    eval "${db}_pass=$(echo "$json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["retention"]["pass_ms"])')"
    deleted=$(echo "$json" | python3 -c 'import json,sys; r=json.load(sys.stdin)["retention"]; print(sum(r[s]["deleted"] for s in ("jobs","turns","events")))')
    # 500 per structure; a finished item's turns are condensed together, so turns may go 2 over.
    [ "$deleted" -ge 1500 ] && [ "$deleted" -le 1502 ] || { echo "expected 1500 rows deleted by one pass, got $deleted" >&2; exit 1; }
  done
  echo "| $r | $small_ms | $small_pass | $large_ms | $large_pass |"
done
