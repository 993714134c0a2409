#!/usr/bin/env bash
# Worktree benchmark (issue 16): what execution.workspace: worktree costs per item on a
# repository of 10,000 files, against `git worktree add` + `git worktree remove` run by hand.
#
#   by hand     for each item: git worktree add -b hand/<i> <dir> main; git worktree remove <dir>
#   shared      orchestrate run, N items of one phase each, agent writes one file (no worktrees)
#   worktree    the same run with execution.workspace: worktree (create the worktree, reset it,
#               commit the phase, rebase + fast-forward main in the user's checkout, remove it)
#   no-merge    worktree with merge: none and retention.worktrees.max_rows: 0: create, reset,
#               commit, and remove at the run's end; no integration (closest to add + remove)
# The per-item cost of worktrees is (worktree - shared) / N: everything orchestrate adds to an
# item, measured end to end through the launcher. Not a test: nothing here gates on a time.
#
# Usage: src/bench/worktrees.sh [ITEMS] [FILES]   (after ./mvnw -DskipTests package; default 20, 10000)
set -euo pipefail
home=$(cd -P "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
items=${1:-20}
files=${2:-10000}
launcher=$home/bin/orchestrate
[ -f "$home/target/orchestrate.jar" ] || { echo "build first: ./mvnw -DskipTests package" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@localhost GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@localhost

ms() { echo $(( $(date +%s%N) / 1000000 )); }

make_repo() { # a repository of $files small files in 100 directories, one commit
  local repo=$1
  git init -q -b main "$repo"
  for d in $(seq 0 99); do
    mkdir -p "$repo/src/d$d"
    for f in $(seq 0 $(( files / 100 - 1 ))); do echo "file $d/$f" > "$repo/src/d$d/f$f.txt"; done
  done
  cat > "$work/agent.sh" <<'AGENT'
#!/usr/bin/env bash
echo "work of $ORCHESTRATE_ITEM_ID" > "item-$ORCHESTRATE_ITEM_ID.txt"
AGENT
  { echo "schema_version: 1"; echo "items:"; for i in $(seq 1 "$items"); do echo "  - {id: I$i, title: item $i}"; done; } \
    > "$repo/backlog.yaml"
  git -C "$repo" add -A && git -C "$repo" commit -q -m init
}

config() { # $1: shared | worktree | no-merge
  local workspace=$1 merge=rebase
  if [ "$1" = no-merge ]; then workspace=worktree; merge=none; echo "retention: {worktrees: {max_rows: 0}}"; fi
  cat <<YAML
agent: {command: ["bash", "$work/agent.sh"]}
execution: {workspace: $workspace, merge: $merge, max_wip: 1, max_concurrent: 1}
default_pipeline: p
pipelines: {p: {phases: [{name: build, instructions: "Build."}]}}
YAML
}

echo "git: $(git --version); java: $(java -version 2>&1 | head -n 1); cpus: $(nproc); items: $items; files: $files"

make_repo "$work/hand"
t0=$(ms)
for i in $(seq 1 "$items"); do
  git -C "$work/hand" worktree add -q -b "hand/$i" "$work/hand-wt/$i" main
  git -C "$work/hand" worktree remove "$work/hand-wt/$i"
done
hand=$(( $(ms) - t0 ))

declare -A total
for mode in shared worktree no-merge; do
  make_repo "$work/$mode"
  config "$mode" > "$work/$mode.yaml"
  t0=$(ms)
  "$launcher" --quiet --config "$work/$mode.yaml" --state "$work/$mode/.orchestrate" run "$work/$mode/backlog.yaml" >/dev/null
  total[$mode]=$(( $(ms) - t0 ))
  [ "$mode" != worktree ] || [ "$(git -C "$work/$mode" log --oneline main | wc -l)" -eq $(( items + 1 )) ] \
    || { echo "the worktree run did not integrate every item" >&2; exit 1; }
  [ "$mode" != no-merge ] || [ -z "$(ls "$work/$mode/.orchestrate/worktrees")" ] \
    || { echo "the no-merge run left worktrees on disk" >&2; exit 1; }
done

printf '| measure | total ms | per item ms |\n|---|---|---|\n'
printf '| `git worktree add` + `git worktree remove` by hand | %d | %d |\n' "$hand" $(( hand / items ))
printf '| `orchestrate run`, workspace: shared | %d | %d |\n' "${total[shared]}" $(( total[shared] / items ))
printf '| `orchestrate run`, workspace: worktree | %d | %d |\n' "${total[worktree]}" $(( total[worktree] / items ))
printf '| `orchestrate run`, worktree, merge: none, removed at the end | %d | %d |\n' "${total[no-merge]}" \
  $(( total[no-merge] / items ))
printf '| worktree - shared (what worktrees add per item, integration included) | %d | %d |\n' \
  $(( total[worktree] - total[shared] )) $(( (total[worktree] - total[shared]) / items ))
printf '| no-merge - shared (create, reset, commit, remove) | %d | %d |\n' \
  $(( total[no-merge] - total[shared] )) $(( (total[no-merge] - total[shared]) / items ))
