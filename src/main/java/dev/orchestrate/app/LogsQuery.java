package dev.orchestrate.app;

import dev.orchestrate.item.CheckRecord;
import dev.orchestrate.item.JobRecord;
import dev.orchestrate.outcome.JobState;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateStore;
import java.util.List;
import java.util.Optional;

/** Which job's log {@code logs} prints, and whether that job still runs (for {@code --follow}). */
public final class LogsQuery {
  private LogsQuery() {
  }

  /** What was looked for. */
  public sealed interface Lookup permits NoState, UnknownItem, NoJobs, NoMatch, Found {
  }

  public record NoState() implements Lookup {
  }

  /** The state knows no such item; {@code known} are the ids it knows. */
  public record UnknownItem(List<String> known) implements Lookup {
    public UnknownItem {
      known = Frozen.list(known);
    }
  }

  /** The item has no jobs (yet, or retention deleted them). */
  public record NoJobs() implements Lookup {
  }

  /** None of the item's {@code jobs} is of {@code phase} (null: any) and the attempt asked for. */
  public record NoMatch(List<JobRecord> jobs, String phase) implements Lookup {
    public NoMatch {
      jobs = Frozen.list(jobs);
    }
  }

  /** The job, its outcome class (null when none is recorded) and the set-up steps and gates it ran. */
  public record Found(JobRecord job, OutcomeClass outcome, List<CheckRecord> checks) implements Lookup {
    public Found {
      checks = Frozen.list(checks);
    }
  }

  /**
   * The last job of item {@code itemId} in {@code phase} with {@code attempt} (each null: any; an
   * attempt without a phase is one of the last job's phase), with its checks when {@code withChecks}.
   */
  public static Lookup job(StateBackend backend, String itemId, String phase, Integer attempt, boolean withChecks) {
    if (!backend.exists()) {
      return new NoState();
    }
    try (StateStore store = backend.open(StateStore.Mode.READ_ONLY)) {
      List<JobRecord> jobs = store.history().jobs(itemId);
      if (jobs.isEmpty()) {
        List<String> near = store.idsNear(itemId, StatusQuery.NEAR);
        return near.contains(itemId) ? new NoJobs() : new UnknownItem(near);
      }
      String wantedPhase = phase != null ? phase : attempt != null ? jobs.get(jobs.size() - 1).phase() : null;
      Optional<JobRecord> match = Optional.empty();
      for (JobRecord job : jobs) {
        if ((wantedPhase == null || job.phase().equals(wantedPhase)) && (attempt == null || job.attempt() == attempt)) {
          match = Optional.of(job);
        }
      }
      if (match.isEmpty()) {
        return new NoMatch(jobs, wantedPhase);
      }
      JobRecord job = match.get();
      List<CheckRecord> checks = withChecks
          ? store.items().checks(List.of(job.id())).getOrDefault(job.id(), List.of()) : List.of();
      return new Found(job, store.items().outcomes(List.of(job.id())).get(job.id()), checks);
    }
  }

  /** Whether job {@code jobId} still runs: its row says so and a run holds the lease (else its run died). */
  public static boolean running(StateBackend backend, long jobId) {
    Optional<JobRecord> row;
    try (StateStore store = backend.open(StateStore.Mode.READ_ONLY)) {
      row = store.history().job(jobId);
    }
    return row.isPresent() && row.get().state() == JobState.RUNNING && backend.leaseHeld();
  }
}
