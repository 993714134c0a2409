#!/usr/bin/env bash
# Scheduler overhead: phases per second of `orchestrate run` with a trivial agent script, at
# max_concurrent 1 and 2, side by side with `xargs -P` spawning the same script the same number
# of times (the floor: process spawning alone). All measured in one run, on this machine.
#
# Usage: src/bench/scheduler.sh [ITEMS] [RUNS] [LAUNCHER...]
#   (after ./mvnw -DskipTests package; default 300 items, 5 runs, this checkout's bin/orchestrate;
#   several launchers: each one's rows, side by side in one hyperfine run, e.g. a build before a change)
# Each item has one phase, so a run executes ITEMS phases; every run starts from an empty state.
# Needs hyperfine (apt-get install hyperfine).
set -euo pipefail
home=$(cd -P "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
items=${1:-300}
runs=${2:-5}
shift 2 || shift $#
launchers=("$@")
[ ${#launchers[@]} -gt 0 ] || launchers=("$home/bin/orchestrate")
[ -f "$home/target/orchestrate.jar" ] || { echo "build first: ./mvnw -DskipTests package" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "hyperfine is needed" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The agent reads its prompt and exits 0 (exit-code fallback: phase_complete).
printf '#!/bin/sh\ncat >/dev/null\nexit 0\n' >"$work/agent.sh"
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
YAML
{
  echo "items:"
  for i in $(seq 1 "$items"); do printf '  - {id: I%05d, title: item %d}\n' "$i" "$i"; done
} >"$work/backlog.yaml"

run() { # launcher max_concurrent
  echo "$1 --quiet --state $work/state --config $work/orchestrate.yaml run $work/backlog.yaml --cap $((items * 2)) --max-wip $2 --max-concurrent $2"
}
names=()
cmds=()
for mc in 1 2; do
  for launcher in "${launchers[@]}"; do
    names+=("orchestrate run, max_concurrent $mc$([ ${#launchers[@]} -gt 1 ] && echo " [$launcher]" || true)")
    cmds+=("$(run "$launcher" $mc)")
  done
done
names+=("xargs -P 1 (same script, $items times)" "xargs -P 2 (same script, $items times)")
cmds+=("sh -c 'seq $items | xargs -P 1 -I{} sh -c \"echo prompt | sh $work/agent.sh\"'"
  "sh -c 'seq $items | xargs -P 2 -I{} sh -c \"echo prompt | sh $work/agent.sh\"'")

echo "java: $(java -version 2>&1 | head -n 1); cpus: $(nproc); items (phases per run): $items; runs: $runs"
args=()
for i in "${!cmds[@]}"; do args+=(-n "${names[$i]}" "${cmds[$i]}"); done
hyperfine -N --runs "$runs" --warmup 1 --prepare "rm -rf $work/state" --export-json "$work/result.json" \
  "${args[@]}" >/dev/null
python3 - "$work/result.json" "$items" <<'PY'
import json, sys
data = json.load(open(sys.argv[1])); n = int(sys.argv[2])
print("| command | mean s | phases/s |")
print("|---|---|---|")
for r in data["results"]:
    print(f"| {r['command']} | {r['mean']:.2f} ± {r['stddev']:.2f} | {n / r['mean']:.0f} |")
PY
