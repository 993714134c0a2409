#!/usr/bin/env bash
# `orchestrate approve ID` on a state of many items (default 200,000), whole-process wall time
# through the launcher: the state copied afresh before each run (hyperfine --prepare), one item
# awaiting review in it. With BEFORE=path/to/another/bin/orchestrate (another build's launcher,
# its jar built) both run side by side in one hyperfine run, alternating.
#
# Usage: src/bench/decisions.sh [ITEMS] [RUNS]   (default 200000 items, 10 runs)
#   after ./mvnw -q -DskipTests package; needs hyperfine (apt-get install -y hyperfine).
#   BENCH_DIR=dir keeps the project and its state there.
set -euo pipefail
home=$(cd -P "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
items=${1:-200000}
runs=${2:-10}
launcher=$home/bin/orchestrate
[ -f "$home/target/orchestrate.jar" ] || { echo "build first: ./mvnw -q -DskipTests package" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "needs hyperfine: apt-get install -y hyperfine" >&2; exit 2; }

if [ -n "${BENCH_DIR:-}" ]; then work=$BENCH_DIR; mkdir -p "$work"; else work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; fi
cd "$work"
cat >orchestrate.yaml <<'YAML'
agent:
  command: ["true"]
default_pipeline: feature
pipelines:
  feature:
    review: required
    phases:
      - {name: build, instructions: Build it.}
YAML
awk -v n="$items" 'BEGIN { print "items:"; for (i = 1; i <= n; i++) printf "  - {id: I%d, title: item %d}\n", i, i }' \
  >backlog.yaml
# Every item stored, one run to its review: the item the benchmark approves.
rm -rf state0
"$launcher" --quiet --state state0 run --no-live --target I1 backlog.yaml
"$launcher" --state state0 status I1 | grep -q awaiting_review || { echo "I1 is not awaiting review" >&2; exit 1; }

commands=(-n "approve (this build)" "$launcher --quiet --state state approve I1")
if [ -n "${BEFORE:-}" ]; then
  commands+=(-n "approve (BEFORE)" "$BEFORE --quiet --state state approve I1")
fi
hyperfine --runs "$runs" --prepare 'rm -rf state && cp -r state0 state' "${commands[@]}"
