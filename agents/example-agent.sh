#!/usr/bin/env bash
# An example agent. orchestrate runs it once per (item, phase, attempt) in the backlog's
# directory with:
#   stdin                    the prompt (markdown), also in the file $ORCHESTRATE_PROMPT_FILE
#   ORCHESTRATE_ITEM_ID      e.g. TASK-1
#   ORCHESTRATE_PHASE        e.g. design
#   ORCHESTRATE_ATTEMPT      1, 2, ...
#   ORCHESTRATE_RESULT_FILE  where to write the result JSON
# Replace the body with a call to your coding agent, for example:
#   claude -p --permission-mode acceptEdits <"$ORCHESTRATE_PROMPT_FILE"
# The prompt tells the agent how to write the result file; without one, exit code 0 means
# phase_complete (summary: the end of stdout) and any other exit code means failed.
set -euo pipefail

prompt=$(cat)
echo "example agent: $ORCHESTRATE_ITEM_ID / $ORCHESTRATE_PHASE (attempt $ORCHESTRATE_ATTEMPT), prompt of ${#prompt} chars"

cat >"$ORCHESTRATE_RESULT_FILE" <<JSON
{"result": "phase_complete", "summary": "Pretended to do $ORCHESTRATE_PHASE for $ORCHESTRATE_ITEM_ID."}
JSON
