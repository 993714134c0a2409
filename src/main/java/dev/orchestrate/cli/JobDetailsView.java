package dev.orchestrate.cli;

import dev.orchestrate.app.JobDetails;
import dev.orchestrate.item.CheckRecord;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.outcome.AgentSession;
import dev.orchestrate.state.StateDirectory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@link JobDetails} as the job rows of {@code jobs} and {@code status ID} show them: JSON keys and text lines. */
final class JobDetailsView {
  private JobDetailsView() {
  }

  /** The job's session and checks as the keys {@code jobs --json} and {@code status ID --json} end a job with. */
  static void putJson(Map<String, Object> row, JobDetails details, JobRecord job, StateDirectory dir) {
    AgentSession session = details.session(job);
    row.put("session_id", session == null ? null : session.id());
    row.put("session_start", session == null ? null : session.start().key());
    List<Map<String, Object>> runs = new ArrayList<>();
    for (CheckRecord check : details.checks(job)) {
      Map<String, Object> run = new LinkedHashMap<>();
      run.put("kind", check.kind().key());
      run.put("name", check.name());
      run.put("ending", check.ending().key());
      run.put("exit_code", check.exitCode());
      run.put("duration_ms", check.duration().toMillis());
      Path log = check.log(job);
      run.put("log_path", log == null ? null : JobsCommand.logPath(dir, log));
      runs.add(run);
    }
    row.put("checks", runs);
  }

  /**
   * The lines under a job's row in a text table: its session (with {@code freshToo}, also a plain
   * fresh start; else only a resumed one and a resume that fell back), then one line per set-up
   * step and gate: {@code gate tests: failed (exit 1) after 3.2s, log jobs/…/gate-tests.log}.
   */
  static List<String> lines(JobDetails details, JobRecord job, StateDirectory dir, boolean freshToo) {
    List<String> lines = new ArrayList<>();
    AgentSession session = details.session(job);
    if (session != null && (freshToo || session.start() != AgentSession.Start.FRESH)) {
      lines.add("session: " + session.start().key() + (session.id() == null ? "" : " " + session.id()));
    }
    for (CheckRecord check : details.checks(job)) {
      Path log = check.log(job);
      lines.add(check.kind().key() + " " + check.name() + ": " + ending(check) + " after "
          + JobsCommand.human(check.duration()) + (log == null ? "" : ", log " + JobsCommand.logPath(dir, log)));
    }
    return lines;
  }

  /** passed, failed (exit 1), timed out, could not start, cancelled. */
  static String ending(CheckRecord check) {
    return switch (check.ending()) {
      case PASSED -> "passed";
      case FAILED -> "failed" + (check.exitCode() == null ? "" : " (exit " + check.exitCode() + ")");
      case TIMED_OUT -> "timed out";
      case SPAWN_FAILED -> "could not start";
      case CANCELLED -> "cancelled";
    };
  }
}
