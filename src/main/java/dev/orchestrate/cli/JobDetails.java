package dev.orchestrate.cli;

import dev.orchestrate.item.CheckRecord;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.item.StateRepository;
import dev.orchestrate.jobs.AgentSession;
import dev.orchestrate.jobs.OutcomeClass;
import dev.orchestrate.jobs.Usage;
import dev.orchestrate.state.StateDirectory;
import dev.orchestrate.workspace.WorkspaceStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the job rows of {@code jobs} and {@code status ID} show beside the job itself, read for
 * the shown jobs at once (one query each): the outcome class, the agent profile, the agent's
 * session and the set-up steps and gates the job ran, its usage, its phase commit and the commit
 * that landed on the base branch for it.
 */
record JobDetails(Map<Long, OutcomeClass> outcomes, Map<Long, String> agents, Map<Long, AgentSession> sessions,
    Map<Long, List<CheckRecord>> checks, Map<Long, Usage> usage, Map<Long, String> commits,
    Map<Long, String> landed) {
  static final JobDetails NONE = new JobDetails(Map.of(), Map.of(), Map.of(), Map.of(), Map.of(), Map.of(),
      Map.of());

  /** The details of {@code jobs}. */
  static JobDetails of(StateRepository store, WorkspaceStore workspaces, List<JobRecord> jobs) {
    List<Long> ids = jobs.stream().map(JobRecord::id).toList();
    return new JobDetails(store.outcomes(ids), store.agents(ids), store.sessions(ids), store.checks(ids),
        store.jobUsage(ids), workspaces.commits(ids), workspaces.landed(ids));
  }

  Usage usage(JobRecord job) {
    return usage.getOrDefault(job.id(), Usage.UNKNOWN);
  }

  /** The phase commit the job made (execution.workspace: worktree), or null. */
  String commit(JobRecord job) {
    return commits.get(job.id());
  }

  /**
   * The commit of the base branch that holds the job's phase commit once its item was integrated:
   * the rebased copy (the phase commit itself after a merge or a fast-forward); null before.
   */
  String landed(JobRecord job) {
    return landed.get(job.id());
  }

  /**
   * What a person is shown as a job's state: {@code blocked} for a job whose agent reported
   * {@code blocked} (or whose set-up failed), which the state records as failed, the rest as recorded.
   */
  static String state(JobRecord job) {
    return job.state() == dev.orchestrate.jobs.JobState.FAILED && "blocked".equals(job.result()) ? "blocked"
        : job.state().key();
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
