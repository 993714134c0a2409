#!/usr/bin/env bash
# Several runners on one PostgreSQL state against one: agent-bound work (each phase's agent sleeps
# 1 s), 400 phases (by default 100 items x 4 phases), max_concurrent 4 per runner, max_wip 16. Measures the
# wall time of 1 runner on SQLite (the baseline), 1 runner on PostgreSQL, and 4 runner processes
# on PostgreSQL started together, and the claim latency p50/p99 of the 4-runner run (from the
# runners' debug log: "claim ITEM taken|refused in N us"). Each PostgreSQL run's wall time is split,
# from its job rows, into start-up (start to the first agent), the span of the agents (first start
# to last end) and exit (last end to the last process gone).
#
# Usage: [ITEMS=N] [PHASES=N] [MAX_WIP=N] src/bench/multirunner.sh   (after ./mvnw -DskipTests package)
#   defaults: 100 items x 4 phases, max_wip 16; ITEMS=400 PHASES=1 is 400 phases of independent items
# Starts a throwaway PostgreSQL server from Debian's package (apt-get install postgresql; the
# server binaries are in /usr/lib/postgresql/*/bin) on port 54329, in a temporary directory, with
# its default settings; run as root, the server runs as the postgres user.
set -euo pipefail
home=$(cd -P "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
launcher=$home/bin/orchestrate
[ -f "$home/target/orchestrate.jar" ] || { echo "build first: ./mvnw -DskipTests package" >&2; exit 2; }
port=54329
items=${ITEMS:-100}
phases=${PHASES:-4}
runners=4
max_wip=${MAX_WIP:-16}
work=$(mktemp -d)
source "$home/src/bench/throwaway-postgres.sh"

printf '#!/bin/sh\ncat >/dev/null\nsleep 1\nexit 0\n' >"$work/agent.sh"
{
  echo "agent:"
  echo "  command: [\"sh\", \"$work/agent.sh\"]"
  echo "execution: {max_wip: $max_wip, max_concurrent: 4, phase_cap: 10000}"
  echo "default_pipeline: four"
  echo "pipelines:"
  echo "  four:"
  echo "    phases:"
  for p in $(seq 1 "$phases"); do echo "      - {name: p$p, instructions: \"Phase $p.\"}"; done
} >"$work/orchestrate.yaml"
{
  echo "items:"
  for i in $(seq 1 "$items"); do printf '  - {id: I%04d, title: item %d}\n' "$i" "$i"; done
} >"$work/backlog.yaml"

now() { date +%s.%N; }
# start-up, agents' span and exit of the run in schema $1 that started at $2 and ended at $3 (seconds)
split() {
  local span
  span=$(as_pg "$pgbin/psql" -h "$work/sock" -p "$port" -U postgres -At -c \
    "SELECT min(started_at) / 1000.0, max(ended_at) / 1000.0 FROM \"$1\".jobs")
  echo "${span%%|*} - $2; ${span##*|} - ${span%%|*}; $3 - ${span##*|}" | tr ';' '\n' | bc | tr '\n' ' '
}
orchestrate() { "$launcher" --quiet --config "$work/orchestrate.yaml" "$@"; }

echo "java: $(java -version 2>&1 | head -n 1); cpus: $(nproc); postgres: $("$pgbin/postgres" --version)"
echo "work: $items items x $phases phases = $((items * phases)) phases, agent sleeps 1 s, max_concurrent 4, max_wip $max_wip"

t0=$(now)
orchestrate --state "$work/sqlite" run "$work/backlog.yaml" >/dev/null
sqlite=$(echo "$(now) - $t0" | bc)

url1="postgresql://postgres@localhost:$port/postgres?schema=one"
t0=$(now)
orchestrate --state "$url1" run "$work/backlog.yaml" >/dev/null
t1=$(now)
pg1=$(echo "$t1 - $t0" | bc)
split1=$(split one "$t0" "$t1")

url4="postgresql://postgres@localhost:$port/postgres?schema=four"
orchestrate init --state "$url4" "$work/init" >/dev/null # migrate once, so the runners start alike (the project it writes stays in $work)
t0=$(now)
pids=()
for r in $(seq 1 "$runners"); do
  "$launcher" --quiet --log-level debug --config "$work/orchestrate.yaml" --state "$url4" \
    run "$work/backlog.yaml" >/dev/null 2>"$work/runner-$r.log" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done
t1=$(now)
pg4=$(echo "$t1 - $t0" | bc)
split4=$(split four "$t0" "$t1")

python3 - "$sqlite" "$pg1" "$pg4" "$((items * phases))" "$work" "$split1" "$split4" <<'PY'
import glob, re, sys
sqlite, pg1, pg4, n, work = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
split1, split4 = [float(x) for x in sys.argv[6].split()], [float(x) for x in sys.argv[7].split()]
lat = []
for f in glob.glob(work + "/runner-*.log"):
    for line in open(f, errors="replace"):
        m = re.search(r"claim \S+ (taken|refused) in (\d+) us", line)
        if m:
            lat.append(int(m.group(2)))
lat.sort()
def pct(p):
    return lat[min(len(lat) - 1, int(p / 100 * len(lat)))] / 1000 if lat else float("nan")
print("| set-up | wall s | phases/s | vs 1 runner on PostgreSQL |")
print("|---|---|---|---|")
print(f"| 1 runner, SQLite (baseline) | {sqlite:.1f} | {n / sqlite:.2f} | |")
print(f"| 1 runner, PostgreSQL | {pg1:.1f} | {n / pg1:.2f} | 1.00x |")
print(f"| 4 runners, PostgreSQL | {pg4:.1f} | {n / pg4:.2f} | {pg1 / pg4:.2f}x |")
print()
print("| PostgreSQL run | start-up to the first agent s | agents' span s | last agent to exit s |")
print("|---|---|---|---|")
print(f"| 1 runner | {split1[0]:.1f} | {split1[1]:.1f} | {split1[2]:.1f} |")
print(f"| 4 runners | {split4[0]:.1f} | {split4[1]:.1f} | {split4[2]:.1f} |")
print(f"claims: {len(lat)}, latency p50 {pct(50):.2f} ms, p99 {pct(99):.2f} ms, max {lat[-1] / 1000 if lat else float('nan'):.2f} ms")
PY
