#!/usr/bin/env bash
# Plays Claude Code from two recordings: prints RESUMED on stdout when its argv resumes a session
# (--resume ID, as the preset's resume argv), else FIRST; then exits with CODE.
first="$1"; resumed="$2"; code="${3:-0}"; shift 3
file="$first"
for arg in "$@"; do
  if [ "$arg" = "--resume" ]; then file="$resumed"; fi
done
cat "$file"
exit "$code"
