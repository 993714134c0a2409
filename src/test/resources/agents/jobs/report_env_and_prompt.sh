#!/usr/bin/env bash
# Records what the agent protocol hands an agent: its environment, stdin and the prompt file.
# Usage: report_env_and_prompt.sh REPORT_FILE
{
  echo "item=$ORCHESTRATE_ITEM_ID"
  echo "phase=$ORCHESTRATE_PHASE"
  echo "attempt=$ORCHESTRATE_ATTEMPT"
  echo "result_file=$ORCHESTRATE_RESULT_FILE"
  echo "prompt_file=$ORCHESTRATE_PROMPT_FILE"
  echo "extra=$AGENT_EXTRA"
  echo "overridden=$ORCHESTRATE_PHASE_OVERRIDE_CHECK"
  echo "path_inherited=$([ -n "$PATH" ] && echo yes || echo no)"
  echo "pwd=$PWD"
  echo "--- stdin"
  cat
  echo
  echo "--- prompt file"
  cat "$ORCHESTRATE_PROMPT_FILE"
  echo
} > "$1"
