#!/usr/bin/env bash
# Several machines, one result (docs/workspaces.md, "Several machines"): 1, 2 and 4 runner
# processes, each in its own clone of one bare origin, on one PostgreSQL state, with
# execution.landing: remote; ITEMS items (default 24) of 4 phases whose agents sleep 1 s (each phase
# appends a line to its item's file, so every phase commits). max_concurrent 2 and max_wip 4 per
# runner. For each runner count: the wall time from start to the last runner's exit, the speed-up
# over one runner, the phases run, the commits on origin's main (one per phase), subjects seen
# twice, and the items whose file on main has all four phases' lines.
# The cost of the pushes: one runner with landing: remote against one runner with landing: local
# in one clone (same items), the difference per phase; and one publish alone (git push of a
# phase commit to refs/orchestrate/<ID> of a local bare repository, as orchestrate runs it,
# git config --list included), timed over 50 pushes.
#
# Usage: [ITEMS=N] src/bench/several-machines.sh   (after ./mvnw -DskipTests package)
# Starts a throwaway PostgreSQL server from Debian's package (apt-get install postgresql) on port
# 54331, in a temporary directory; run as root, the server runs as the postgres user.
set -euo pipefail
home=$(cd -P "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
launcher=$home/bin/orchestrate
[ -f "$home/target/orchestrate.jar" ] || { echo "build first: ./mvnw -DskipTests package" >&2; exit 2; }
port=54331
items=${ITEMS:-24}
work=$(mktemp -d)
source "$home/src/bench/throwaway-postgres.sh"
psql() { as_pg "$pgbin/psql" -h "$work/sock" -p "$port" -U postgres -At "$@"; }

# one bare origin per configuration, seeded with the project
seed() { # $1: directory of the origin to make, $2: landing
  local seed=$work/seed
  rm -rf "$seed" && git init -q -b main "$seed"
  printf '#!/bin/sh\necho "$ORCHESTRATE_PHASE" >> "work-$ORCHESTRATE_ITEM_ID.txt"\nsleep 1\nexit 0\n' >"$seed/agent.sh"
  cat >"$seed/orchestrate.yaml" <<YAML
agent:
  command: ["sh", "agent.sh"]
execution: {workspace: worktree, landing: $2, max_wip: 4, max_concurrent: 2, phase_cap: 10000}
default_pipeline: four
pipelines:
  four:
    phases:
      - {name: p1, instructions: "Phase 1."}
      - {name: p2, instructions: "Phase 2."}
      - {name: p3, instructions: "Phase 3."}
      - {name: p4, instructions: "Phase 4."}
YAML
  { echo "items:"; for i in $(seq 1 "$items"); do printf '  - {id: I%03d, title: item %d}\n' "$i" "$i"; done; } \
    >"$seed/backlog.yaml"
  printf '.orchestrate/\n' >"$seed/.gitignore"
  git -C "$seed" add -A && git -C "$seed" -c user.name=b -c user.email=b@b commit -qm init
  git init -q --bare -b main "$1" && git -C "$seed" push -q "$1" main
}

now() { date +%s.%N; }
# runs $1 runners in $1 clones of a fresh origin with landing $2; prints "wall phases commits"
measure() {
  local n=$1 landing=$2 schema="bench_${1}_$2"
  local origin=$work/origin-$n-$landing.git
  seed "$origin" "$landing"
  local url="postgresql://postgres@localhost:$port/postgres?schema=$schema"
  local pids=() start end
  for r in $(seq 1 "$n"); do git clone -q "$origin" "$work/clone-$n-$landing-$r"; done
  start=$(now)
  for r in $(seq 1 "$n"); do
    (cd "$work/clone-$n-$landing-$r" && PGHOST= exec "$launcher" --state "$url" run backlog.yaml \
      >"$work/run-$n-$landing-$r.out" 2>&1) &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  end=$(now)
  local phases commits dupes
  phases=$(psql -c "SELECT count(*) FROM \"$schema\".jobs WHERE state = 'completed'")
  local gd=$origin
  [ "$landing" = remote ] || gd=$work/clone-$n-$landing-1/.git
  commits=$(( $(git --git-dir="$gd" rev-list --count main) - 1 ))
  dupes=$(git --git-dir="$gd" log --format=%s main | sort | uniq -d | wc -l)
  whole=0
  for i in $(seq 1 "$items"); do
    [ "$(git --git-dir="$gd" show "main:work-$(printf 'I%03d' "$i").txt" 2>/dev/null)" = "$(printf 'p1\np2\np3\np4')" ] \
      && whole=$((whole + 1))
  done
  echo "$(printf '%.1f' "$(echo "$end - $start" | bc)") $phases $commits $dupes $whole"
}

echo "java: $(java -version 2>&1 | head -n 1); cpus: $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg); $items items x 4 phases, 1 s agents"
echo "| runners (clones) | landing | wall s | speed-up | phases run | commits on main | duplicated | items whole |"
echo "|---|---|---|---|---|---|---|---|"
read -r local_wall local_phases local_commits local_dupes local_whole <<<"$(measure 1 local)"
echo "| 1 | local | $local_wall | | $local_phases | $local_commits | $local_dupes | $local_whole |"
one=
for n in 1 2 4; do
  read -r wall phases commits dupes whole <<<"$(measure "$n" remote)"
  [ -n "$one" ] || one=$wall
  echo "| $n | remote | $wall | $(echo "scale=2; $one / $wall" | bc) | $phases | $commits | $dupes | $whole |"
done
echo
echo "pushes, one runner: (remote - local) / phases = $(echo "scale=3; ($one - $local_wall) / $local_phases" | bc) s per phase"

# one publish alone, as orchestrate runs it (git config --list, then the push with a lease)
pub=$work/pub && git init -q -b main "$pub" && git init -q --bare "$work/pub.git"
git -C "$pub" -c user.name=b -c user.email=b@b commit -q --allow-empty -m base
prev=
t0=$(now)
for i in $(seq 1 50); do
  git -C "$pub" -c user.name=b -c user.email=b@b commit -q --allow-empty -m "phase $i"
  git -C "$pub" config --null --list >/dev/null
  git -C "$pub" push -q --porcelain --force-with-lease="refs/orchestrate/I1:$prev" "$work/pub.git" \
    "HEAD:refs/orchestrate/I1" >/dev/null
  prev=$(git -C "$pub" rev-parse HEAD)
done
t1=$(now)
echo "one publish, with its phase commit: $(echo "scale=1; ($t1 - $t0) * 1000 / 50" | bc) ms per phase"
