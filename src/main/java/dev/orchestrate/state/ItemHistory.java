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
}
