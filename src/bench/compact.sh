#!/usr/bin/env bash
# Compaction benchmark: `orchestrate compact --keep-recent 50` on a store of 1,000,000 episodic
# memories (created through `orchestrate memory import`), whole-process wall time through the
# launcher, side by side with the plain sqlite3 tool running the equivalent single DELETE on an
# identical copy of the database. Each round starts from fresh copies of the same file.
#
# Usage: src/bench/compact.sh [ITEMS] [ROUNDS]   (default 1000000 items, 5 rounds)
#   after ./mvnw -q -DskipTests package; needs sqlite3 (apt-get install -y sqlite3).
set -euo pipefail
home=$(cd -P "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
items=${1:-1000000}
rounds=${2:-5}
launcher=$home/bin/orchestrate
[ -f "$home/target/orchestrate.jar" ] || { echo "build first: ./mvnw -q -DskipTests package" >&2; exit 2; }
command -v sqlite3 >/dev/null || { echo "needs sqlite3: apt-get install -y sqlite3" >&2; exit 2; }

# The statement SqlMemoryRepository.deleteStatement(50) runs (a test keeps the two equal).
delete="DELETE FROM memories WHERE load_bearing = 0 AND superseded_by IS NULL AND seq < (SELECT seq FROM memories WHERE load_bearing = 0 AND superseded_by IS NULL ORDER BY seq DESC LIMIT 1 OFFSET 49)"

work=${BENCH_DIR:-$(mktemp -d)}
trap 'rm -rf "$work"' EXIT
ms() { echo $((($(date +%s%N) - $1) / 1000000)); }

awk -v n="$items" 'BEGIN { for (i = 1; i <= n; i++)
  printf "{\"kind\": \"episodic\", \"title\": \"WRK-%07d done\", \"content\": \"WRK-%07d done: implemented the change, tests green, reviewed\", \"tags\": [\"outcome\"]}\n", i, i }' \
  >"$work/memories.jsonl"
t0=$(date +%s%N)
"$launcher" --quiet --state "$work/seed" memory import "$work/memories.jsonl" >/dev/null
import_ms=$(ms "$t0")
"$launcher" --quiet --state "$work/seed" memory add --kind semantic "We use Postgres 16" >/dev/null
db_bytes=$(stat -c %s "$work/seed/state.db")

echo "java: $(java -version 2>&1 | head -n 1); sqlite3: $(sqlite3 --version | cut -d' ' -f1); cpus: $(nproc)"
echo "items: $items; import: ${import_ms} ms; database: $db_bytes bytes"
printf '| round | orchestrate compact --keep-recent 50 (ms) | sqlite3 DELETE (ms) | ratio |\n|---|---|---|---|\n'
for r in $(seq "$rounds"); do
  rm -rf "$work/a" "$work/b"
  cp -r "$work/seed" "$work/a"
  cp -r "$work/seed" "$work/b"
  sync
  # alternate which one goes first, so neither always meets a warmer page cache
  for turn in $(if [ $((r % 2)) = 1 ]; then echo ours theirs; else echo theirs ours; fi); do
    t0=$(date +%s%N)
    if [ "$turn" = ours ]; then
      "$launcher" --quiet --state "$work/a" compact --keep-recent 50 >/dev/null
      ours=$(ms "$t0")
    else
      sqlite3 "$work/b/state.db" "$delete"
      theirs=$(ms "$t0")
    fi
  done
  left_a=$(sqlite3 "$work/a/state.db" "SELECT COUNT(*) FROM memories")
  left_b=$(sqlite3 "$work/b/state.db" "SELECT COUNT(*) FROM memories")
  [ "$left_a" = "$left_b" ] || { echo "different results: $left_a vs $left_b rows left" >&2; exit 1; }
  awk -v r="$r" -v a="$ours" -v b="$theirs" 'BEGIN { printf "| %d | %d | %d | %.2f |\n", r, a, b, a / b }'
done
echo "rows left in each copy: $left_a (50 recent episodes + 1 semantic)"
t0=$(date +%s%N); "$launcher" --quiet --state "$work/a" compact --keep-recent 50 >/dev/null
echo "a second compact (deletes 0: start-up and bookkeeping only): $(ms "$t0") ms"
