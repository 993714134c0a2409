package dev.orchestrate.state;

import dev.orchestrate.item.JobRecord;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** One item's history as {@code status ID} and {@code logs} show it. */
public interface ItemHistory {
  /** One agent answer kept as a turn: what the agent reported for an attempt of a phase. */
  record KeptAnswer(String phase, int attempt, String text) {
  }

  /** The item's jobs that retention kept, oldest first. */
  List<JobRecord> jobs(String itemId);

  /** One job by id. */
  Optional<JobRecord> job(long id);

  /** Every item's most recent job, by item id. */
  Map<String, JobRecord> latestJobs();

  /** The item's agent answers that retention kept, oldest first. */
  List<KeptAnswer> answers(String itemId);

  /** The item's rolling summary of prior context, if it has one. */
  Optional<String> contextSummary(String itemId);

  /**
   * One attempt to land the item's work, as its event recorded it (docs/verification.md, "What lands").
   *
   * @param result       integrated, integration_failed, deferred, pushed, awaiting_checks or skipped
   * @param round        for integration_failed, the red round; else null
   * @param baseCommit   the base's tip the work was gated on, null when no gate ran
   * @param testedCommit the commit the gates ran on, null when no gate ran
   * @param gates        each gate, how it ended and how long it took, null when no gate ran
   * @param gatesMillis  how long the gates ran, null when no gate ran
   */
  record Landing(java.time.Instant at, String result, String message, Long round, String baseCommit,
      String testedCommit, String gates, Long gatesMillis) {
  }

  /** The item's most recent landing attempts that retention kept, newest first, at most {@code limit}. */
  default List<Landing> landings(String itemId, int limit) {
    return List.of();
  }
}
