#!/usr/bin/env bash
# The merge queue's cost (merge-queue issue): N independent items (each writes a file of its own),
# one phase each, a gate of GATE_SECONDS (default 2) that runs after every phase and again as the
# integration gate on the tree that lands, max_concurrent 4, worktrees, merge: rebase. For each N:
# the whole run's wall time, the gate runs in phases and in landings, landings per landed item, and
# the time the queue adds (landing gate seconds, which run one at a time).
#
# Usage: src/bench/merge-queue.sh [ITEMS...]   (after ./mvnw -DskipTests package; default 10 20 40)
#   GATE_SECONDS (environment): how long the gate sleeps (default 2)
#   BATCH (environment): execution.integration_batch (unset: 1, the serial queue)
set -euo pipefail
home=$(cd -P "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
[ -f "$home/target/orchestrate.jar" ] || { echo "build first: ./mvnw -DskipTests package" >&2; exit 2; }
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10 20 40)
gate=${GATE_SECONDS:-2}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "java: $(java -version 2>&1 | head -n 1); cpus: $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg); gate: ${gate} s"
echo "| items | wall s | phase gate runs | landing gate runs | landing gate runs per item | landing gate s (serial) | wall s per item |"
echo "|---|---|---|---|---|---|---|"
for n in "${sizes[@]}"; do
  repo="$work/repo-$n"
  mkdir -p "$repo"
  git -C "$repo" init -q -b main
  git -C "$repo" config user.email bench@localhost
  git -C "$repo" config user.name bench
  # the gate logs where it runs: a landing tree is <state>/worktrees/+land-ID
  printf '#!/bin/sh\necho "$PWD" >> %s/gates-%s.log\nsleep %s\n' "$work" "$n" "$gate" >"$repo/gate.sh"
  printf '#!/bin/sh\necho "$ORCHESTRATE_ITEM_ID" > "item-$ORCHESTRATE_ITEM_ID.txt"\necho done\n' >"$work/agent.sh"
  awk -v n="$n" 'BEGIN { print "items:"; for (i = 1; i <= n; i++) printf "  - {id: I%03d, title: t}\n", i }' \
    >"$repo/backlog.yaml"
  cat >"$repo/orchestrate.yaml" <<YAML
agent:
  command: ["sh", "$work/agent.sh"]
  timeout: 5m
execution: {workspace: worktree, max_wip: 8, max_concurrent: 4${BATCH:+, integration_batch: $BATCH}}
default_pipeline: one
pipelines:
  one:
    verify: [{name: tests, run: "sh gate.sh", timeout: 5m}]
    phases:
      - {name: build, instructions: "Build it."}
YAML
  git -C "$repo" add -A && git -C "$repo" commit -qm init
  start=$(date +%s%N)
  (cd "$repo" && "$home/bin/orchestrate" --quiet run backlog.yaml >/dev/null)
  end=$(date +%s%N)
  log="$work/gates-$n.log"
  landing=$(grep -c '/+land-' "$log" || true)
  phase=$(grep -vc '/+land-' "$log" || true)
  landed=$(git -C "$repo" rev-list --count main)
  landed=$((landed - 1))
  awk -v n="$n" -v s="$start" -v e="$end" -v p="$phase" -v l="$landing" -v d="$landed" -v g="$gate" 'BEGIN {
    wall = (e - s) / 1e9
    printf "| %d | %.1f | %d | %d | %.2f | %.0f | %.2f |\n", n, wall, p, l, (d > 0 ? l / d : 0), l * g, wall / n }'
done
