#!/usr/bin/env bash
# What a dead notification endpoint costs a run (issue 32, item 4): ITEMS one-phase items with a
# trivial agent, every item's done announced (item_done, run_finished), side by side in one run:
#   - no notify: section;
#   - a webhook on a port nothing listens on (connection refused, 3 attempts per document);
#   - a webhook on a server that accepts and never answers (each attempt waits for its timeout).
# The run's end waits at most 5 s for a healthy sink (RunSession.NOTIFY_DRAIN) and not for a
# failing or stuck one (Notifier.close); nothing else should differ. Also prints what `stats --json` recorded about the deliveries of the last run.
#
# Usage: src/bench/notify.sh [ITEMS] [RUNS]   (after ./mvnw -DskipTests package; default 200 items, 5 runs)
# Needs hyperfine (apt-get install hyperfine) and python3.
set -euo pipefail
home=$(cd -P "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
items=${1:-200}
runs=${2:-5}
launcher=$home/bin/orchestrate
[ -f "$home/target/orchestrate.jar" ] || { echo "build first: ./mvnw -DskipTests package" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "hyperfine is needed" >&2; exit 2; }

work=$(mktemp -d)
silent_pid=
trap '[ -n "$silent_pid" ] && kill "$silent_pid" 2>/dev/null; rm -rf "$work"' EXIT
printf '#!/bin/sh\ncat >/dev/null\nexit 0\n' >"$work/agent.sh"
# A server that accepts connections and never answers them.
python3 - "$work/port" <<'PY' &
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(256)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
held = []
while True:
    c, _ = s.accept(); held.append(c)
PY
silent_pid=$!
while [ ! -s "$work/port" ]; do sleep 0.1; done
silent=$(cat "$work/port")
refused=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')

config() { # name, notify section
  cat >"$work/$1.yaml" <<YAML
agent:
  command: ["sh", "$work/agent.sh"]
  timeout: 1m
default_pipeline: one
pipelines:
  one:
    phases:
      - name: work
        instructions: "Do the work."
$2
YAML
}
config none ""
config refused "notify:
  - {type: webhook, name: hook, url: \"http://127.0.0.1:$refused/hook\", events: [item_done, run_finished]}"
config silent "notify:
  - {type: webhook, name: hook, url: \"http://127.0.0.1:$silent/hook\", timeout: 2s, events: [item_done, run_finished]}"
{
  echo "items:"
  for i in $(seq 1 "$items"); do printf '  - {id: I%05d, title: item %d}\n' "$i" "$i"; done
} >"$work/backlog.yaml"

run() { # config
  echo "$launcher --quiet --state $work/state-$1 --config $work/$1.yaml run $work/backlog.yaml --cap $((items * 2)) --max-wip 2 --max-concurrent 2"
}
echo "java: $(java -version 2>&1 | head -n 1); cpus: $(nproc); items: $items; runs: $runs"
hyperfine -N --runs "$runs" --warmup 1 --export-json "$work/result.json" \
  --prepare "rm -rf $work/state-none" --prepare "rm -rf $work/state-refused" --prepare "rm -rf $work/state-silent" \
  -n "no notify" "$(run none)" -n "webhook refused" "$(run refused)" -n "webhook never answers" "$(run silent)" \
  >/dev/null
python3 - "$work/result.json" "$items" <<'PY'
import json, sys
data = json.load(open(sys.argv[1])); n = int(sys.argv[2])
print("| run of %d items | mean s | min s | max s |" % n)
print("|---|---|---|---|")
for r in data["results"]:
    print(f"| {r['command']} | {r['mean']:.2f} ± {r['stddev']:.2f} | {r['min']:.2f} | {r['max']:.2f} |")
PY
for c in refused silent; do
  printf '%s: ' "$c"
  "$launcher" --state "$work/state-$c" stats --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["last_run"]["notifications"])'
done
