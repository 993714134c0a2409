#!/usr/bin/env bash
# Time to the first agent of `orchestrate run --cap 1` on a backlog of N items of an id and a title
# (issue 33), from an empty state, and the heap a run holds per item (RunHeapProbe, 100,000 items).
#
# Usage: src/bench/backlog.sh [ITEMS...]   (after ./mvnw -DskipTests package; default 10000 100000 1000000)
#   ROUNDS (environment): runs of each size, a row each (default 1); runs of one build spread by
#   about ±0.5 s at a million items on 2 cores, so take several.
# The agent records when it starts and exits 0; backlog.max_bytes is raised to 64MiB for the million.
set -euo pipefail
home=$(cd -P "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
[ -f "$home/target/orchestrate.jar" ] || { echo "build first: ./mvnw -DskipTests package" >&2; exit 2; }
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 100000 1000000)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '#!/bin/sh\ndate +%%s%%N >"%s/first"\ncat >/dev/null\nexit 0\n' "$work" >"$work/agent.sh"
cat >"$work/orchestrate.yaml" <<YAML
agent:
  command: ["sh", "$work/agent.sh"]
  timeout: 1m
default_pipeline: one
pipelines:
  one:
    phases:
      - name: work
        instructions: "Do the work."
backlog:
  max_bytes: 64MiB
YAML
echo "java: $(java -version 2>&1 | head -n 1); cpus: $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| items | file | first agent s | whole run s |"
echo "|---|---|---|---|"
for n in "${sizes[@]}"; do
  awk -v n="$n" 'BEGIN { print "items:"; for (i = 1; i <= n; i++) printf "  - {id: I%07d, title: t}\n", i }' \
    >"$work/backlog.yaml"
  for _ in $(seq "${ROUNDS:-1}"); do
  rm -rf "$work/state" "$work/first"
  start=$(date +%s%N)
  "$home/bin/orchestrate" --quiet --state "$work/state" --config "$work/orchestrate.yaml" run "$work/backlog.yaml" \
    --cap 1 >/dev/null
  end=$(date +%s%N)
  first=$(cat "$work/first")
  printf '| %s | %s | %.1f | %.1f |\n' "$n" "$(du -h "$work/backlog.yaml" | cut -f1)" \
    "$(echo "($first - $start) / 1000000000" | bc -l)" "$(echo "($end - $start) / 1000000000" | bc -l)"
  done
done
