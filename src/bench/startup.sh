#!/usr/bin/env bash
# Start-up benchmark: whole-process wall time of `orchestrate --version` and
# `orchestrate status --json` (on a state database with the example's items) through the
# launcher, against the floor of `java -cp . Hello`, and against a plain `java -jar` of the same
# jar without the launcher's options. All measured in one run, on this machine.
#
# Usage: src/bench/startup.sh [RUNS]     (after ./mvnw -DskipTests package; default 30 runs)
# Uses hyperfine when installed (apt-get install hyperfine), else a plain timing loop.
set -euo pipefail
home=$(cd -P "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
runs=${1:-30}
jar=$home/target/orchestrate.jar
launcher=$home/bin/orchestrate
[ -f "$jar" ] || { echo "build first: ./mvnw -DskipTests package" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/Hello.java" <<'JAVA'
public class Hello { public static void main(String[] a) { System.out.println("hello"); } }
JAVA
javac -d "$work" "$work/Hello.java"
cp -r "$home/examples" "$work/examples"
"$launcher" --quiet --state "$work/state" run "$work/examples/backlog.yaml" >/dev/null

names=("java -cp . Hello" "orchestrate --version" "orchestrate status --json"
  "java -jar (no launcher options) status --json")
cmds=("java -cp $work Hello"
  "$launcher --version"
  "$launcher --state $work/state status --json"
  "java -jar $jar --state $work/state status --json")

echo "java: $(java -version 2>&1 | head -n 1); cpus: $(nproc); runs: $runs"
if command -v hyperfine >/dev/null; then
  args=()
  for i in "${!cmds[@]}"; do args+=(-n "${names[$i]}" "${cmds[$i]}"); done
  hyperfine -N --warmup 3 --runs "$runs" --export-markdown "$work/result.md" "${args[@]}" >/dev/null
  cat "$work/result.md"
else
  printf '| command | mean ms | min ms | max ms |\n|---|---|---|---|\n'
  for i in "${!cmds[@]}"; do
    for _ in 1 2 3; do ${cmds[$i]} >/dev/null 2>&1; done
    times=()
    for _ in $(seq "$runs"); do
      t0=$(date +%s%N); ${cmds[$i]} >/dev/null 2>&1; t1=$(date +%s%N)
      times+=($(((t1 - t0) / 1000000)))
    done
    printf '%s\n' "${times[@]}" | awk -v n="${names[$i]}" \
      'NR==1{min=$1;max=$1} {s+=$1; if($1<min)min=$1; if($1>max)max=$1} END{printf "| `%s` | %.0f | %d | %d |\n", n, s/NR, min, max}'
  done
fi
