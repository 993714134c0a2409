package dev.orchestrate.app;

import dev.orchestrate.item.JobRecord;
import dev.orchestrate.item.RunRecord;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateStore;
import java.util.List;
import java.util.Optional;

/** What {@code jobs} shows: the newest jobs with their details, and the current or last run. */
public final class JobsQuery {
  private JobsQuery() {
  }

  /** The run header: the recorded run and whether it is still working. */
  public record RunView(RunRecord run, String state) {
  }

  /** The newest jobs, newest first, their details, and the last run (empty before any). */
  public record Jobs(List<JobRecord> jobs, JobDetails details, Optional<RunView> run) {
    public static final Jobs NONE = new Jobs(List.of(), JobDetails.NONE, Optional.empty());

    public Jobs {
      jobs = Frozen.list(jobs);
    }
  }

  /** The {@code limit} newest jobs ({@link Jobs#NONE} when there is no state yet). */
  public static Jobs recent(StateBackend backend, int limit) {
    if (!backend.exists()) {
      return Jobs.NONE;
    }
    try (StateStore store = backend.openToRead()) {
      List<JobRecord> jobs = store.items().recentJobs(limit);
      return new Jobs(jobs, JobDetails.of(store.items(), store.workspaces(), jobs),
          store.items().lastRun().map(r -> new RunView(r, runState(r, backend))));
    }
  }

  /** running, ended, or died (no end recorded and nobody holds the lock: the process was killed). */
  private static String runState(RunRecord run, StateBackend backend) {
    if (run.ended()) {
      return "ended";
    }
    return backend.leaseHeld() ? "running" : "died";
  }
}
