package dev.orchestrate.app;

import dev.orchestrate.item.CheckRecord;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.item.StateRepository;
import dev.orchestrate.outcome.AgentSession;
import dev.orchestrate.outcome.JobState;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.outcome.Usage;
import dev.orchestrate.workspace.WorkspaceStore;
import java.util.List;
import java.util.Map;

/**
 * What the job rows of {@code jobs} and {@code status ID} show beside the job itself, read for
 * the shown jobs at once (one query each; the commands render it): the outcome class, the agent profile, the agent's
 * session and the set-up steps and gates the job ran, its usage, its phase commit and the commit
 * that landed on the base branch for it, and its item's pull request ({@code execution.merge: push}).
 *
 * @param pullRequests the pull request of each item that has one, by item id
 */
public record JobDetails(Map<Long, OutcomeClass> outcomes, Map<Long, String> agents, Map<Long, AgentSession> sessions,
    Map<Long, List<CheckRecord>> checks, Map<Long, Usage> usage, Map<Long, String> commits,
    Map<Long, String> landed, Map<String, String> pullRequests) {
  public static final JobDetails NONE = new JobDetails(Map.of(), Map.of(), Map.of(), Map.of(), Map.of(), Map.of(),
      Map.of(), Map.of());

  /** The details of {@code jobs}. */
  public static JobDetails of(StateRepository store, WorkspaceStore workspaces, List<JobRecord> jobs) {
    List<Long> ids = jobs.stream().map(JobRecord::id).toList();
    return new JobDetails(store.outcomes(ids), store.agents(ids), store.sessions(ids), store.checks(ids),
        store.jobUsage(ids), workspaces.commits(ids), workspaces.landed(ids), pullRequests(workspaces));
  }

  private static Map<String, String> pullRequests(WorkspaceStore workspaces) {
    Map<String, String> urls = new java.util.LinkedHashMap<>();
    workspaces.pushes().forEach((item, push) -> {
      if (push.url() != null) {
        urls.put(item, push.url());
      }
    });
    return urls;
  }

  /** The pull request of the job's item (execution.merge: push), or null. */
  public String pullRequest(JobRecord job) {
    return pullRequests.get(job.itemId());
  }

  public Usage usage(JobRecord job) {
    return usage.getOrDefault(job.id(), Usage.UNKNOWN);
  }

  /** The phase commit the job made (execution.workspace: worktree), or null. */
  public String commit(JobRecord job) {
    return commits.get(job.id());
  }

  /**
   * The commit of the base branch that holds the job's phase commit once its item was integrated:
   * the rebased copy (the phase commit itself after a merge or a fast-forward); null before.
   */
  public String landed(JobRecord job) {
    return landed.get(job.id());
  }

  /**
   * What a person is shown as a job's state: {@code blocked} for a job whose agent reported
   * {@code blocked} (or whose set-up failed), which the state records as failed, the rest as recorded.
   */
  public static String state(JobRecord job) {
    return job.state() == JobState.FAILED && "blocked".equals(job.result()) ? "blocked"
        : job.state().key();
  }

  public OutcomeClass outcome(JobRecord job) {
    return outcomes.get(job.id());
  }

  public String agent(JobRecord job) {
    return agents.get(job.id());
  }

  public AgentSession session(JobRecord job) {
    return sessions.get(job.id());
  }

  public List<CheckRecord> checks(JobRecord job) {
    return checks.getOrDefault(job.id(), List.of());
  }

}
