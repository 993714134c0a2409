#!/usr/bin/env bash
# Plays a coding-agent CLI from a recording: prints FILE on stdout, writes RESULT_JSON (if not
# "-") to the result file, exits with CODE.
file="$1"; result="${2:--}"; code="${3:-0}"
cat "$file"
if [ "$result" != "-" ]; then printf '%s' "$result" > "$ORCHESTRATE_RESULT_FILE"; fi
exit "$code"
