#!/usr/bin/env bash
# Writes the given text to the result file, then exits with the given code.
# Usage: write_result.sh RESULT_TEXT EXIT_CODE
printf '%s' "$1" > "$ORCHESTRATE_RESULT_FILE"
echo "wrote a result file"
exit "$2"
