#!/usr/bin/env bash
# A stand-in for an AI coding agent, used by the shipped example so that it runs anywhere.
# It follows the agent protocol: the prompt arrives on stdin (and in $ORCHESTRATE_PROMPT_FILE),
# the result goes to $ORCHESTRATE_RESULT_FILE as JSON, or is derived from the exit code.
# It behaves according to the item's demo:* tags, which appear in the prompt's "- tags:" line.
set -euo pipefail

prompt=$(cat)
id=$ORCHESTRATE_ITEM_ID
phase=$ORCHESTRATE_PHASE
attempt=$ORCHESTRATE_ATTEMPT
tags=$(printf '%s\n' "$prompt" | sed -n 's/^- tags: //p' | head -n 1)

has_tag() { [[ ", $tags, " == *", $1, "* ]]; }

report() { # result summary [context]
  printf '{"result": "%s", "summary": "%s", "context": "%s"}\n' "$1" "$2" "${3:-}" >"$ORCHESTRATE_RESULT_FILE"
}

echo "demo agent: $id, phase $phase, attempt $attempt"
sleep 0.1 # pretend to work

if has_tag demo:blocked && [[ $phase == design ]]; then
  report blocked "" "Needs a product decision: which payment provider replaces the old one?"
  exit 0
fi

if has_tag demo:flaky && [[ $phase == fix && $attempt == 1 ]]; then
  # No result file: the non-zero exit code means "failed" and stderr is the failure context,
  # which the retry's prompt receives under "## Previous Failure".
  echo "FAILED tests/export_test.py::test_large_export - TimeoutError: export took 31s (limit 30s)" >&2
  exit 1
fi

if has_tag demo:subphase && [[ $phase == build ]] && ! grep -q "part 1 of the build is done" <<<"$prompt"; then
  # Progress, not completion: the phase runs again, with this summary in its prompt.
  report subphase_complete "part 1 of the build is done: token model in src/auth/reset_token.py"
  exit 0
fi

if [[ $phase == review ]]; then
  # No result file and exit 0: phase_complete, with the tail of stdout as the summary.
  echo "Reviewed $id: no issues found."
  exit 0
fi

report phase_complete "$phase of $id is done"
