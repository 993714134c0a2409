package dev.orchestrate.config;

/**
 * What an attempt means when the agent wrote no result file.
 * EXIT_CODE: exit 0 is phase_complete (summary = tail of stdout), non-zero is failed (context =
 * tail of stderr). STRICT: a missing result file is a failure whatever the exit code.
 */
public enum ResultFallback {
  EXIT_CODE, STRICT
}
