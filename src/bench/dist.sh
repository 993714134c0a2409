#!/usr/bin/env bash
# The self-contained archive (issue 47) beside today's launcher: its size, its installed size, and
# the start-up of `--version`, `status --json` and a `run` that finds nothing left to do (it loads
# the run's classes, which the start-up archive leaves out) through this checkout's bin/orchestrate (the JDK
# on PATH or JAVA_HOME, its start-up archive made by the build) and through the installed copy (its
# own jlinked runtime, its start-up archive made by install.sh), each on its own copy of one state.
#
# Usage: src/bench/dist.sh [RUNS]     (default 20 runs of each command, after 3 warm-ups)
# Build first: ./mvnw -B -q package -DskipTests -Pdist. Needs hyperfine.
set -euo pipefail
home=$(cd -P "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
runs=${1:-20}
command -v hyperfine >/dev/null || { echo "hyperfine is not installed" >&2; exit 2; }
shopt -s nullglob
archives=("$home"/target/dist/orchestrate-*.tar.gz)
shopt -u nullglob
[ ${#archives[@]} -eq 1 ] || { echo "build first: ./mvnw -B -q package -DskipTests -Pdist" >&2; exit 2; }
archive=${archives[0]}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$home/target/dist/install.sh" --prefix "$work/prefix" "$archive" >/dev/null
installed=$work/prefix/bin/orchestrate
checkout=$home/bin/orchestrate

kib() { du -sk "$1" | cut -f1; }
echo "archive: ${archive##*/}, $(kib "$archive") KiB"
echo "installed: $(kib "$work/prefix/lib/orchestrate") KiB (runtime $(kib "$work/prefix/lib/orchestrate/runtime") KiB," \
  "jar $(kib "$work/prefix/lib/orchestrate/lib/orchestrate.jar") KiB, start-up archive $(kib "$work/prefix/lib/orchestrate/lib/cds") KiB)"
echo "checkout: target/orchestrate.jar $(kib "$home/target/orchestrate.jar") KiB, target/cds $(kib "$home/target/cds") KiB, plus a JDK"
# shellcheck source=../../bin/lib/platform.sh
echo "the checkout's java: $(. "$home/bin/lib/platform.sh" && orchestrate_platform "$home" && "$java" -version 2>&1 | head -n 1)"
echo "cpus: $(nproc); load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo ?)"
echo

# A small real state: the shipped example's 8 items after a full run.
cp -r "$home/examples" "$work/examples"
"$checkout" --quiet --state "$work/state" run "$work/examples/backlog.yaml" >/dev/null
cp -r "$work/state" "$work/state-installed"

hyperfine -N --warmup 3 --runs "$runs" --export-json "$work/times.json" \
  -n "today's launcher: --version" "$checkout --version" \
  -n "installed: --version" "$installed --version" \
  -n "today's launcher: status --json" "$checkout --state $work/state status --json" \
  -n "installed: status --json" "$installed --state $work/state-installed status --json" \
  -n "today's launcher: run (nothing left to do)" "$checkout --quiet --state $work/state run $work/examples/backlog.yaml" \
  -n "installed: run (nothing left to do)" "$installed --quiet --state $work/state-installed run $work/examples/backlog.yaml" >&2
# Wall time is mostly waiting for a core on a loaded machine; CPU time (user + system) is the
# work start-up does, and varies far less.
echo "| command | wall ms, median | wall ms, mean ± σ | CPU ms (user + sys), mean |"
echo "|:---|---:|---:|---:|"
awk -F': ' '
  /"command":/ { name = $0; sub(/^[^:]*: "/, "", name); sub(/",?$/, "", name) }
  /"mean":/ { mean = $2 + 0 } /"stddev":/ { sd = $2 + 0 } /"median":/ { median = $2 + 0 }
  /"user":/ { user = $2 + 0 }
  /"system":/ { printf "| `%s` | %.0f | %.0f ± %.0f | %.0f |\n", name, median * 1000, mean * 1000, sd * 1000, (user + $2) * 1000 }
' "$work/times.json"
