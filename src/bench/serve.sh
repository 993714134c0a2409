#!/usr/bin/env bash
# Dashboard benchmark: `orchestrate serve` over a state of 100,000 items (the example's run, then
# items, jobs and stats samples added with sqlite3), the server's own time per page (its
# Server-Timing header: database reads and rendering) and the wall time curl sees, median and
# max over ROUNDS requests after 5 warm-up ones; then the live heap the server holds after a full
# GC (jcmd GC.class_histogram) and its resident set.
#
# Usage: src/bench/serve.sh [ITEMS] [ROUNDS]   (default 100000 items, 20 rounds)
#   after ./mvnw -q -DskipTests package; needs sqlite3, curl and jcmd.
set -euo pipefail
home=$(cd -P "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
items=${1:-100000}
rounds=${2:-20}
launcher=$home/bin/orchestrate
[ -f "$home/target/orchestrate.jar" ] || { echo "build first: ./mvnw -q -DskipTests package" >&2; exit 2; }
for tool in sqlite3 curl jcmd; do
  command -v "$tool" >/dev/null || { echo "needs $tool" >&2; exit 2; }
done

work=${BENCH_DIR:-$(mktemp -d)}
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

cp -r "$home/examples" "$work/project"
(cd "$work/project" && "$launcher" --quiet --state "$work/state" run backlog.yaml >/dev/null 2>&1 || true)
now=$(($(date +%s) * 1000))
sqlite3 "$work/state/state.db" <<SQL
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $items)
INSERT INTO items (id, seq, title, pipeline, priority, tags, status, phase, attempts, blocked_reason, created_at,
                   updated_at)
SELECT printf('BIG-%06d', i), 1000 + i, 'Generated item number ' || i || ' of the benchmark backlog', 'feature',
       CASE i % 3 WHEN 0 THEN 'high' WHEN 1 THEN 'medium' ELSE 'low' END, '["bench", "t' || (i % 50) || '"]',
       CASE WHEN i % 10 < 7 THEN 'done' WHEN i % 10 = 7 THEN 'blocked' ELSE 'new' END, 'build', 1,
       CASE WHEN i % 10 = 7 THEN 'needs a decision on item ' || i END, $now - i * 1000, $now - i * 1000
  FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)
INSERT INTO jobs (run_id, item_id, phase, attempt, state, result, started_at, ended_at, exit_code, reason)
SELECT 1, printf('BIG-%06d', i * 10), 'build', 1, 'completed', 'phase_complete', $now - i * 60000,
       $now - i * 60000 + 30000, 0, NULL FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)
INSERT INTO stats_samples (at, source, db_bytes, rows)
SELECT $now - (5000 - i) * 17000, 'run', 1000000 + i * 4000,
       json_object('items', i * 20, 'jobs', i * 2, 'turns', i * 3, 'events', i * 5, 'memory', i / 10,
                   'summaries', i, 'job_logs', i * 2, 'stats_samples', i) FROM n;
SQL
db_bytes=$(stat -c %s "$work/state/state.db")

"$launcher" --state "$work/state" serve --port 0 >"$work/serve.out" 2>"$work/serve.err" &
pid=$!
for _ in $(seq 300); do grep -q 'http://' "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
base=$(grep -o 'http://[^ ]*/' "$work/serve.out")

echo "java: $(java -version 2>&1 | head -n 1); cpus: $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "items: $(sqlite3 "$work/state/state.db" 'SELECT COUNT(*) FROM items'); jobs: 10000+; stats samples: 5000; database: $db_bytes bytes"
printf '| page | server median (ms) | server max (ms) | curl median (ms) | bytes |\n|---|---:|---:|---:|---:|\n'
# The deepest offsets are the last pages (of every item, of the done ones); a tag or text filter
# matching every item, a third, 1 in 150, ten or none.
for page in / /items "/items?offset=$((items / 2))" "/items?offset=$((items - 50))" '/items?status=blocked' \
    "/items?status=done&offset=$((items * 7 / 10 - 50))" '/items?tag=bench' '/items?tag=bench&priority=medium' \
    '/items?tag=t7&priority=high' '/items?q=number' '/items?q=BIG-09999' '/items?q=no+such+item' '/items?tag=nope' \
    "/item?id=BIG-$(printf '%06d' $((items / 2)))" /jobs '/jobs?before=5000' /growth /memory; do
  for _ in 1 2 3 4 5; do curl -s -o /dev/null "$base${page#/}"; done
  server=() wall=()
  for _ in $(seq "$rounds"); do
    line=$(curl -s -D - -o "$work/body" -w 'wall=%{time_total}\n' "$base${page#/}")
    server+=("$(grep -io 'render;dur=[0-9.]*' <<<"$line" | cut -d= -f2)")
    wall+=("$(grep -o 'wall=[0-9.]*' <<<"$line" | cut -d= -f2)")
  done
  smed=$(printf '%s\n' "${server[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  smax=$(printf '%s\n' "${server[@]}" | sort -n | tail -n 1)
  wmed=$(printf '%s\n' "${wall[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)] * 1000}')
  printf '| `%s` | %s | %s | %s | %s |\n' "$page" "$smed" "$smax" "$wmed" "$(stat -c %s "$work/body")"
done
live=$(jcmd "$pid" GC.class_histogram | awk '/^Total/ {print $3}')
rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
echo "live heap after a full GC: $((live / 1024)) KiB; resident set: $((rss / 1024)) MiB"
