#!/usr/bin/env bash
# Start-up benchmark (issue 19): the short commands scripts call, each against the JVM's floor,
# as ratios measured pair by pair in one run.
#
# Usage: src/bench/startup.sh [RUNS] [LAUNCHER...]
#   RUNS      rounds (default 15); in each round the floor and every command run once, in an
#             order rotated from round to round, so a load spike hits all rows alike.
#   LAUNCHER  bin/orchestrate scripts to compare (default: this checkout's); each row of each.
# The JVM is the launcher's: JAVA_HOME, else java on PATH. The floor is `java <the launcher's
# JVM options> -cp DIR Hello` (the JDK's own CDS archive, no application archive).
# Build first: ./mvnw -DskipTests package (and JAVA_HOME=<jdk 25> bin/build-cds for its AOT cache).
#
# Output: per command, the median wall time and CPU time (user + sys), and each as a ratio to the
# floor of the same round: min, median, max over the rounds. On a loaded machine the wall time is
# mostly waiting for a core; the CPU time is the work start-up does, and varies far less.
set -euo pipefail
home=$(cd -P "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
runs=${1:-15}
shift || true
launchers=("$@")
[ ${#launchers[@]} -gt 0 ] || launchers=("$home/bin/orchestrate")
[ -f "$home/target/orchestrate.jar" ] || { echo "build first: ./mvnw -DskipTests package" >&2; exit 2; }

# shellcheck source=../../bin/lib/platform.sh
. "$home/bin/lib/platform.sh"
orchestrate_platform "$home"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/Hello.java" <<'JAVA'
public class Hello { public static void main(String[] a) { System.out.println("hello"); } }
JAVA
"$java" -version 2>"$work/version"
"${java%java}javac" -d "$work" "$work/Hello.java" 2>/dev/null || javac --release 17 -d "$work" "$work/Hello.java"
cp -r "$home/examples" "$work/examples"
# A small real state: the example's 8 items after a full run (jobs, turns, events, memories).
"${launchers[0]}" --quiet --state "$work/state" run "$work/examples/backlog.yaml" >/dev/null
config=$work/examples/orchestrate.yaml

names=("floor: java -cp . Hello")
cmds=("$java ${java_opts[*]} -cp $work Hello")
# Each launcher reads its own copy of the state: a newer build would migrate a shared one to a
# schema the older one refuses.
for li in "${!launchers[@]}"; do
  l=${launchers[$li]}
  tag=""
  [ ${#launchers[@]} -gt 1 ] && tag=" [$l]"
  state=$work/state
  if [ "$li" -gt 0 ]; then state=$work/state-$li; cp -r "$work/state" "$state"; fi
  for c in "status --json" "status" "stats --json" "stats" "jobs --json" "memory list --json" \
    "compact --config $config"; do
    names+=("${c/ --config $config/ (deletes nothing)}$tag")
    cmds+=("$l --state $state $c")
  done
done
# compact's first pass records the policies; from then on it deletes nothing.
for i in "${!cmds[@]}"; do
  [[ ${cmds[$i]} == *" compact "* ]] && { ${cmds[$i]} >/dev/null 2>&1 || true; }
done

n=${#cmds[@]}
for i in $(seq 0 $((n - 1))); do for _ in 1 2; do ${cmds[$i]} >/dev/null 2>&1 || true; done; done
TIMEFORMAT='%3R %3U %3S'
for r in $(seq 0 $((runs - 1))); do
  for k in $(seq 0 $((n - 1))); do
    i=$(((k + r) % n))
    # shellcheck disable=SC2086 # the command is a list of words
    { time ${cmds[$i]} >/dev/null 2>"$work/err"; } 2>"$work/time" || { echo "failed: ${cmds[$i]}" >&2; cat "$work/err" >&2; exit 1; }
    # round, command, wall ms, CPU ms (user + sys of the process and its children)
    awk -v r="$r" -v i="$i" '{ printf "%d %d %.0f %.0f\n", r, i, $1 * 1000, ($2 + $3) * 1000 }' "$work/time" >>"$work/times"
  done
done

echo "java: $(head -n 1 "$work/version"); $(sed -n 2p "$work/version")"
echo "cpus: $(nproc); rounds: $runs; load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo ?)"
echo
echo "| command | wall ms (median) | wall ratio: min | median | max | CPU ms (median) | CPU ratio: min | median | max |"
echo "|:---|---:|---:|---:|---:|---:|---:|---:|---:|"
# median of a column of numbers (one per line)
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
stats() { # column of the row file -> "min median max"
  echo "$(cut -d' ' -f"$1" "$work/row" | sort -g | head -n 1) $(cut -d' ' -f"$1" "$work/row" | median)" \
    "$(cut -d' ' -f"$1" "$work/row" | sort -g | tail -n 1)"
}
for i in $(seq 0 $((n - 1))); do
  awk -v i="$i" '$2 == 0 { wf[$1] = $3; cf[$1] = $4 } $2 == i { w[$1] = $3; c[$1] = $4 }
    END { for (r in w) printf "%d %.4f %d %.4f\n", w[r], w[r] / wf[r], c[r], (cf[r] > 0 ? c[r] / cf[r] : 0) }' \
    "$work/times" >"$work/row"
  read -r _ wall _ <<<"$(stats 1)"
  read -r wlo wmid whi <<<"$(stats 2)"
  read -r _ cpu _ <<<"$(stats 3)"
  read -r clo cmid chi <<<"$(stats 4)"
  printf '| `%s` | %.0f | %.2f | %.2f | %.2f | %.0f | %.2f | %.2f | %.2f |\n' "${names[$i]}" \
    "$wall" "$wlo" "$wmid" "$whi" "$cpu" "$clo" "$cmid" "$chi"
done
