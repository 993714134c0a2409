package dev.orchestrate.cli;

import dev.orchestrate.jobs.AgentSession;
import dev.orchestrate.jobs.OutcomeClass;
import dev.orchestrate.scheduler.CheckRecord;
import dev.orchestrate.scheduler.JobRecord;
import dev.orchestrate.scheduler.StateRepository;
import dev.orchestrate.state.StateDirectory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the job rows of {@code jobs} and {@code status ID} show beside the job itself, read for
 * the shown jobs at once (one query each): the outcome class, the agent profile, the agent's
 * session and the set-up steps and gates the job ran.
 */
record JobDetails(Map<Long, OutcomeClass> outcomes, Map<Long, String> agents, Map<Long, AgentSession> sessions,
    Map<Long, List<CheckRecord>> checks) {
  static final JobDetails NONE = new JobDetails(Map.of(), Map.of(), Map.of(), Map.of());

  /** The details of {@code jobs}. */
  static JobDetails of(StateRepository store, List<JobRecord> jobs) {
    List<Long> ids = jobs.stream().map(JobRecord::id).toList();
    return new JobDetails(store.outcomes(ids), store.agents(ids), store.sessions(ids), store.checks(ids));
  }

  OutcomeClass outcome(JobRecord job) {
    return outcomes.get(job.id());
  }

  String agent(JobRecord job) {
    return agents.get(job.id());
  }

  AgentSession session(JobRecord job) {
    return sessions.get(job.id());
  }

  List<CheckRecord> checks(JobRecord job) {
    return checks.getOrDefault(job.id(), List.of());
  }

  /** The job's session and checks as the keys {@code jobs --json} and {@code status ID --json} end a job with. */
  void putJson(Map<String, Object> row, JobRecord job, StateDirectory dir) {
    AgentSession session = session(job);
    row.put("session_id", session == null ? null : session.id());
    row.put("session_start", session == null ? null : session.start().key());
    List<Map<String, Object>> runs = new ArrayList<>();
    for (CheckRecord check : checks(job)) {
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
  List<String> lines(JobRecord job, StateDirectory dir, boolean freshToo) {
    List<String> lines = new ArrayList<>();
    AgentSession session = session(job);
    if (session != null && (freshToo || session.start() != AgentSession.Start.FRESH)) {
      lines.add("session: " + session.start().key() + (session.id() == null ? "" : " " + session.id()));
    }
    for (CheckRecord check : checks(job)) {
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
