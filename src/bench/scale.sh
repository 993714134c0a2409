#!/usr/bin/env bash
# Scale benchmark (issue 33): how `orchestrate run` and `status` behave as the backlog grows, for
# two builds side by side (BEFORE and AFTER), all measured in one run of this script, on this
# machine, on a SQLite state.
#
# Usage: src/bench/scale.sh BEFORE.jar AFTER.jar [ITEMS...]
#   ITEMS  backlog sizes (default: 1000 10000 100000; 1000000 is slow, and a build that refuses a
#          backlog that large is reported as "refused", not as a failure of this script; AFTER
#          is given `backlog.max_bytes` when the file is over the default 16 MiB).
#   PHASES (environment) phases in the timed sample (default 400); KEEP=1 keeps the work directory.
# Build a jar of a commit with: git worktree add --detach /tmp/b <commit> && (cd /tmp/b &&
#   ./mvnw -B -o -q -DskipTests package) and pass /tmp/b/target/orchestrate.jar.
#
# Each case: a backlog of ITEMS items (`- {id: I0000001, title: t}`), a two-phase pipeline, an
# instant agent (a sh script that reads its prompt, then records the time and the sample below
# with shell builtins only), `run --max-wip 1 --max-concurrent 1` with the launcher's JVM options
# (C1, serial GC, no start-up archive: the jars are compared alike). Columns:
#   first agent s   from the JVM's start (its /proc start time) to the first agent's start;
#   phases/s        (PHASES - 1) phases over the time from the first to the PHASES-th agent;
#   sched ms/phase  CPU time (utime + stime, /proc/PID/task/TID/stat) of the scheduler thread,
#                   Java's main thread (on Linux its OS name is the process's, `java`, in the
#                   task that is not the primordial one), read by the first and the PHASES-th agent
#                   while the scheduler waits for it, divided by PHASES - 1 (clock-tick resolution,
#                   10 ms over the whole sample);
#   heap MiB        heap in use after a full GC (`GC.run`, then `GC.heap_info`, in one `jcmd -f`):
#                   the serial GC's full collection moves every live object to the tenured
#                   generation, whose used space it is (what the young one allocated since is
#                   left out), taken once the timed sample is over, the run still going; the run
#                   is then stopped (SIGTERM);
#   status s        wall time of `status --json` on the state the run left (median of 3 starts).
# Needs jcmd (the JDK's) and /proc (Linux).
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,13p' "$0" >&2; exit 2; }
jars=("$1" "$2")
labels=(BEFORE AFTER)
shift 2
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000 100000)
phases=${PHASES:-400}
for i in 0 1; do
  [ -f "${jars[$i]}" ] || { echo "no such jar: ${jars[$i]}" >&2; exit 2; }
  jars[$i]=$(cd "$(dirname "${jars[$i]}")" && pwd)/$(basename "${jars[$i]}")
done
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
jcmd=${JAVA_HOME:+$JAVA_HOME/bin/}jcmd
command -v "$jcmd" >/dev/null || { echo "jcmd is needed (a JDK)" >&2; exit 2; }
opts=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData -XX:CICompilerCount=1)
hz=$(getconf CLK_TCK)

work=$(mktemp -d)
pid=
cleanup() {
  [ -z "$pid" ] || kill "$pid" 2>/dev/null || true
  if [ -n "${KEEP:-}" ]; then echo "kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

# run_case ITEMS LABEL JAR: one run; prints the row's cells (| first | phases/s | ms/phase | heap | status |)
run_case() {
  local n=$1 label=$2 jar=$3
  local d=$work/$n-$label
  mkdir -p "$d"
  ln -s "$work/backlog-$n.yaml" "$d/backlog.yaml"
  cat >"$d/agent.sh" <<AGENT
#!/bin/sh
cat >/dev/null
read -r up _ </proc/uptime
stat=-
if [ -r "$d/main" ]; then read -r path <"$d/main"; read -r stat <"\$path" || stat=-; fi
echo "\$up \$stat" >>"$d/samples"
AGENT
  cat >"$d/orchestrate.yaml" <<YAML
agent:
  command: ["sh", "$d/agent.sh"]
  timeout: 1m
default_pipeline: two
pipelines:
  two:
    phases:
      - name: first
        instructions: "Do the first part."
      - name: second
        instructions: "Do the second part."
YAML
  # A backlog file over the default cap (16 MiB: about 500,000 items here) needs backlog.max_bytes,
  # which only AFTER knows: BEFORE had the cap fixed, and is reported "refused".
  local bytes
  bytes=$(stat -L -c %s "$d/backlog.yaml")
  if [ "$label" = AFTER ] && [ "$bytes" -gt $((16 * 1024 * 1024)) ]; then
    printf 'backlog:\n  max_bytes: %dMiB\n' $((bytes / 1024 / 1024 * 2 + 2)) >>"$d/orchestrate.yaml"
  fi
  (cd "$d" && exec "$java" "${opts[@]}" -jar "$jar" --quiet --state "$d/state" --config "$d/orchestrate.yaml" \
    run "$d/backlog.yaml" --cap $((phases + 1000)) --max-wip 1 --max-concurrent 1) >"$d/out" 2>"$d/err" &
  pid=$!
  local start_ticks
  start_ticks=$(awk '{sub(/^.*\) /, ""); print $20}' "/proc/$pid/stat" 2>/dev/null || echo 0)
  # The scheduler thread: Java's main thread. The JVM gives its own threads their names; the
  # launcher starts main in a thread of its own, which keeps the process's name (java) as the
  # primordial thread (tid = pid, waiting for it) does; a JVM that names it "main" is taken too.
  local t comm found=
  for _ in $(seq 1 3000); do
    for t in /proc/"$pid"/task/[0-9]*; do
      { read -r comm <"$t/comm"; } 2>/dev/null || continue
      if [ "$comm" = main ] || { [ "$comm" = java ] && [ "${t##*/}" != "$pid" ]; }; then
        echo "$t/stat" >"$d/main"
        found=1
        break
      fi
    done
    [ -z "$found" ] && kill -0 "$pid" 2>/dev/null && sleep 0.01 || break
  done
  local heap=-
  while kill -0 "$pid" 2>/dev/null; do
    if [ -f "$d/samples" ] && [ "$(wc -l <"$d/samples")" -ge "$phases" ]; then
      printf 'GC.run\nGC.heap_info\n' >"$d/jcmd" # one attach: the heap is read right after the GC
      "$jcmd" "$pid" -f "$d/jcmd" >"$d/heap" 2>&1 || true
      heap=$(awk '/tenured generation/ { for (i = 1; i <= NF; i++) if ($i == "used") { v = $(i + 1); sub(/K.*/, "", v); s += v } }
        END { if (s > 0) printf "%.1f", s / 1024; else print "-" }' "$d/heap")
      kill -TERM "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.2
  done
  local rc=0
  wait "$pid" || rc=$?
  pid=
  if [ ! -s "$d/samples" ]; then
    # No agent ever started: the build refused the backlog (or failed); say which, go on.
    if grep -qiE 'too large|too many|refus|limit' "$d/err"; then echo "| refused | - | - | - | - |"
    else echo "| failed (exit $rc: $(head -c 80 "$d/err" | tr '\n|' '  ')) | - | - | - | - |"; fi
    return
  fi
  local status_s
  status_s=$(for _ in 1 2 3; do
    s=$(date +%s%N)
    "$java" "${opts[@]}" -jar "$jar" --state "$d/state" status --json >/dev/null 2>&1 || true
    echo $(( $(date +%s%N) - s ))
  done | sort -n | sed -n 2p)
  awk -v p="$phases" -v hz="$hz" -v start="$start_ticks" -v heap="$heap" -v st="$status_s" '
    function cpu(   a) { return ($15 + $16) / hz } # utime, stime: fields 14, 15 of stat, after the uptime
    NR == 1 { t1 = $1; c1 = (NF > 2 ? cpu() : -1) }
    NR == p { tp = $1; cp = (NF > 2 ? cpu() : -1) }
    END {
      first = t1 - start / hz
      if (NR < p) { printf "| %.2f | only %d phases | - | %s | %.2f |\n", first, NR, heap, st / 1e9; exit }
      r = (tp > t1) ? (p - 1) / (tp - t1) : -1
      rate = r < 0 ? "-" : sprintf(r < 10 ? "%.1f" : "%.0f", r)
      ms = (c1 >= 0 && cp >= 0) ? sprintf("%.2f", (cp - c1) * 1000 / (p - 1)) : "-"
      printf "| %.2f | %s | %s | %s | %.2f |\n", first, rate, ms, heap, st / 1e9
    }' "$d/samples"
}

echo "java: $("$java" -version 2>&1 | head -n 1); cpus: $(nproc); timed phases: $phases"
echo "BEFORE: ${jars[0]}"
echo "AFTER:  ${jars[1]}"
echo
echo "| items | build | first agent s | phases/s | sched ms/phase | heap MiB | status s |"
echo "|---:|---|---:|---:|---:|---:|---:|"
for n in "${sizes[@]}"; do
  awk -v n="$n" 'BEGIN { print "items:"; for (i = 1; i <= n; i++) printf "  - {id: I%07d, title: t}\n", i }' \
    >"$work/backlog-$n.yaml"
  for i in 0 1; do
    echo "| $n | ${labels[$i]} $(run_case "$n" "${labels[$i]}" "${jars[$i]}")"
  done
  [ -n "${KEEP:-}" ] || rm -rf "$work/$n-"* "$work/backlog-$n.yaml"
done
