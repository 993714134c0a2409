#!/usr/bin/env bash
# What agent.sandbox: bwrap costs a phase: `orchestrate run` over ITEMS one-phase items with a
# trivial agent script (and one trivial gate, which runs in the sandbox too), without and with the
# sandbox, side by side in one hyperfine run; the difference divided by ITEMS is the cost per phase
# (two bwrap starts: the agent's and the gate's).
#
# Usage: src/bench/sandbox.sh [ITEMS] [RUNS]
#   (after ./mvnw -DskipTests package; default 100 items, 5 runs). Needs hyperfine and bwrap
#   (apt-get install hyperfine bubblewrap).
set -euo pipefail
home=$(cd -P "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
items=${1:-100}
runs=${2:-5}
[ -f "$home/target/orchestrate.jar" ] || { echo "build first: ./mvnw -DskipTests package" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "hyperfine is needed" >&2; exit 2; }
command -v bwrap >/dev/null || { echo "bwrap is needed (bubblewrap)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '#!/bin/sh\ncat >/dev/null\nexit 0\n' >"$work/agent.sh"
for box in none bwrap; do
  cat >"$work/$box.yaml" <<YAML
agent:
  command: ["sh", "$work/agent.sh"]
  timeout: 1m
  sandbox: $box
default_pipeline: one
pipelines:
  one:
    phases:
      - name: work
        instructions: "Do the work."
        verify: [{name: check, run: "true"}]
YAML
done
{
  echo "items:"
  for i in $(seq 1 "$items"); do printf '  - {id: I%05d, title: item %d}\n' "$i" "$i"; done
} >"$work/backlog.yaml"

run() { # config
  echo "$home/bin/orchestrate --quiet --state $work/state --config $work/$1.yaml run $work/backlog.yaml --cap $((items * 2)) --max-wip 1 --max-concurrent 1"
}
echo "java: $(java -version 2>&1 | head -n 1); cpus: $(nproc); bwrap: $(bwrap --version); items (phases per run): $items; runs: $runs"
hyperfine -N --runs "$runs" --warmup 1 --prepare "rm -rf $work/state" --export-json "$work/result.json" \
  -n "agent.sandbox: none" "$(run none)" -n "agent.sandbox: bwrap" "$(run bwrap)" >/dev/null
python3 - "$work/result.json" "$items" <<'PY'
import json, sys
data = json.load(open(sys.argv[1])); n = int(sys.argv[2])
print("| command | mean s | ms per phase |")
print("|---|---|---|")
for r in data["results"]:
    print(f"| {r['command']} | {r['mean']:.2f} ± {r['stddev']:.2f} | {1000 * r['mean'] / n:.1f} |")
none, box = data["results"][0]["mean"], data["results"][1]["mean"]
print(f"\nthe sandbox costs {1000 * (box - none) / n:.1f} ms a phase (agent and gate, {n} phases)")
PY
