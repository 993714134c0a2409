#!/usr/bin/env bash
# What one git command costs orchestrate's process before git does any work: N runs of
# `git rev-parse HEAD` (a command that does next to nothing) started from a JVM as orchestrate's Git
# starts them (ProcessBuilder, output read to the end), plain and behind `setsid`, with the JDK's
# default launch (posix_spawn through its jspawnhelper) and with VFORK (no helper; deprecated in
# Java 25), and the same from bash. CPU is user + sys of the whole process tree (/usr/bin/time).
#
# Usage: src/bench/spawn-cost.sh [N]   (default 300; JAVA_HOME selects the JVM, else java on PATH)
set -euo pipefail
n=${1:-300}
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cat >"$work/Spawn.java" <<'JAVA'
import java.util.Arrays;
import java.util.List;

public class Spawn {
  public static void main(String[] args) throws Exception {
    int n = Integer.parseInt(args[0]);
    List<String> command = Arrays.asList(args).subList(1, args.length);
    for (int i = 0; i < n; i++) {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      p.waitFor();
    }
  }
}
JAVA
"${java}c" -d "$work" "$work/Spawn.java"
git init -q "$work/repo" && git -C "$work/repo" -c user.name=b -c user.email=b@localhost commit -q --allow-empty -m one
cd "$work/repo"
per() { awk -v n="$n" -v base="$2" '{ split($1, t, "+"); printf "%-44s %6.2f s CPU  %5.1f ms a command\n", $2, t[1] + t[2], (t[1] + t[2] - base) * 1000 / n }' <<<"$1"; }
cpu() { /usr/bin/time -f "%U+%S" "$@" 2>&1 >/dev/null | tail -1; }
floor=$(cpu "$java" -cp "$work" Spawn 0 true | awk '{ split($1, t, "+"); print t[1] + t[2] }')
echo "JVM with no command: $floor s CPU (subtracted below)"
for mechanism in POSIX_SPAWN VFORK; do
  for prefix in "" "setsid"; do
    # shellcheck disable=SC2086 # the prefix is one word or none
    per "$(cpu "$java" -Djdk.lang.Process.launchMechanism=$mechanism -cp "$work" Spawn "$n" $prefix git rev-parse HEAD 2>/dev/null) java-$mechanism${prefix:+-setsid}" "$floor"
  done
done
per "$(cpu bash -c "for i in \$(seq $n); do setsid git rev-parse HEAD >/dev/null; done") bash-setsid" 0
per "$(cpu bash -c "for i in \$(seq $n); do /bin/true; done") bash-/bin/true" 0
