#!/usr/bin/env bash
# Worktree scaling (issue 46, items 1 and 3): phases per second of `orchestrate run` with 1 and 4
# agents at once, in the shared workspace and in worktrees, and orchestrate's CPU per phase (its
# JVM and every git it started, user + sys from /usr/bin/time) with an instant agent.
#
#   sleep   ITEMS items of 2 phases, an agent that sleeps 1 s and writes a file: phases/s with
#           max_concurrent 1 and 4 (max_wip the same); the agents wait, so 4 jobs can be 4x
#   instant the same items with an agent that only writes its file: CPU per phase
# Worktree runs land every item (merge: rebase, the default) and check that main has every commit.
# Not a test: nothing here gates on a time.
#
# Usage: src/bench/worktree-scaling.sh [ITEMS] [FILES] [CHECKOUT...]
#   (after ./mvnw -DskipTests package; default 16 items, 200 files, this checkout; give several
#   checkouts to compare builds side by side, each run one after the other per measure)
set -euo pipefail
home=$(cd -P "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
items=${1:-16}
files=${2:-200}
shift $(( $# >= 2 ? 2 : $# ))
checkouts=("$@")
[ ${#checkouts[@]} -gt 0 ] || checkouts=("$home")
for co in "${checkouts[@]}"; do
  [ -f "$co/target/orchestrate.jar" ] || { echo "build first: (cd $co && ./mvnw -DskipTests package)" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@localhost GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@localhost

cat > "$work/sleep.sh" <<'AGENT'
#!/usr/bin/env bash
sleep 1
echo "$ORCHESTRATE_PHASE of $ORCHESTRATE_ITEM_ID" > "item-$ORCHESTRATE_ITEM_ID-$ORCHESTRATE_PHASE.txt"
AGENT
cat > "$work/instant.sh" <<'AGENT'
#!/usr/bin/env bash
echo "$ORCHESTRATE_PHASE of $ORCHESTRATE_ITEM_ID" > "item-$ORCHESTRATE_ITEM_ID-$ORCHESTRATE_PHASE.txt"
AGENT

make_repo() { # $1: where; a repository of $files small files, one commit
  local repo=$1
  git init -q -b main "$repo"
  for d in $(seq 0 $(( (files + 99) / 100 - 1 ))); do
    mkdir -p "$repo/src/d$d"
    for f in $(seq 0 $(( files / 100 > 0 ? files / 100 - 1 : files - 1 ))); do echo "file $d/$f" > "$repo/src/d$d/f$f.txt"; done
  done
  { echo "schema_version: 1"; echo "items:"; for i in $(seq 1 "$items"); do echo "  - {id: I$i, title: item $i}"; done; } \
    > "$repo/backlog.yaml"
  git -C "$repo" add -A && git -C "$repo" commit -q -m init
}

config() { # $1: shared | worktree, $2: agent, $3: jobs
  cat <<YAML
agent: {command: ["bash", "$work/$2.sh"], timeout: 60s}
execution: {workspace: $1, max_wip: $3, max_concurrent: $3}
default_pipeline: p
pipelines: {p: {phases: [{name: design, instructions: "Design."}, {name: build, instructions: "Build."}]}}
YAML
}

# one run; prints "wall_s cpu_s"
one() { # $1: checkout, $2: mode, $3: agent, $4: jobs
  local co=$1 mode=$2 agent=$3 jobs=$4 dir
  dir=$(mktemp -d "$work/run.XXXX")
  make_repo "$dir/repo"
  config "$mode" "$agent" "$jobs" > "$dir/orchestrate.yaml"
  /usr/bin/time -f "%e %U %S" -o "$dir/time" "$co/bin/orchestrate" --quiet --config "$dir/orchestrate.yaml" \
    --state "$dir/repo/.orchestrate" run "$dir/repo/backlog.yaml" > /dev/null
  if [ "$mode" = worktree ] && [ "$(git -C "$dir/repo" log --oneline main | wc -l)" -ne $(( 2 * items + 1 )) ]; then
    echo "the worktree run did not land every phase commit on main" >&2; exit 1
  fi
  awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }' "$dir/time"
  rm -rf "$dir"
}

phases=$(( 2 * items ))
echo "git: $(git --version); java: $(java -version 2>&1 | head -n 1); cpus: $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "items: $items of 2 phases ($phases phases); files: $files"
printf '| build | measure | shared | worktree |\n|---|---|---:|---:|\n'
for co in "${checkouts[@]}"; do
  name=$(git -C "$co" rev-parse --short HEAD 2>/dev/null || echo "$co")
  declare -A rate=()
  for mode in shared worktree; do
    for jobs in 1 4; do
      read -r wall _ < <(one "$co" "$mode" sleep "$jobs")
      rate[$mode$jobs]=$(awk -v p="$phases" -v w="$wall" 'BEGIN { printf "%.2f", p / w }')
    done
  done
  printf '| %s | phases/s, 1 job (1 s agents) | %s | %s |\n' "$name" "${rate[shared1]}" "${rate[worktree1]}"
  printf '| %s | phases/s, 4 jobs (1 s agents) | %s | %s |\n' "$name" "${rate[shared4]}" "${rate[worktree4]}"
  printf '| %s | 4 jobs / 1 job | %s | %s |\n' "$name" \
    "$(awk -v a="${rate[shared4]}" -v b="${rate[shared1]}" 'BEGIN { printf "%.2fx", a / b }')" \
    "$(awk -v a="${rate[worktree4]}" -v b="${rate[worktree1]}" 'BEGIN { printf "%.2fx", a / b }')"
  read -r _ cpu_shared < <(one "$co" shared instant 1)
  read -r _ cpu_worktree < <(one "$co" worktree instant 1)
  printf '| %s | CPU ms per phase, instant agent (JVM + git) | %s | %s (%s) |\n' "$name" \
    "$(awk -v c="$cpu_shared" -v p="$phases" 'BEGIN { printf "%.0f", 1000 * c / p }')" \
    "$(awk -v c="$cpu_worktree" -v p="$phases" 'BEGIN { printf "%.0f", 1000 * c / p }')" \
    "$(awk -v a="$cpu_worktree" -v b="$cpu_shared" 'BEGIN { printf "%.2fx", a / b }')"
done
