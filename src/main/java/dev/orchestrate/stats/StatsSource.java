package dev.orchestrate.stats;

import java.time.Instant;

/** Where {@code stats} takes its figures from: counters kept as rows are written, never a count over a big table. */
public interface StatsSource {
  /** Every structure's counters, the storage figures, the last run and the trend window. */
  StatsInput read(Instant now);

  /** Lifetime usage and the last run's spend against its budget. */
  Spending spending();

  /**
   * The runners registered in a state several runners share, oldest first, with the items each
   * holds; none where one run holds the state at a time.
   */
  default java.util.List<RunnerLease> runners() {
    return java.util.List.of();
  }

  /**
   * Records one trend sample during a run or compact (which hold the write lock anyway); the
   * samples' own retention prunes them.
   */
  void recordSample(String source, Instant at);

  /**
   * Records one trend sample for {@code stats} and prunes the samples beyond their policy, waiting
   * only briefly for the write lock: a reader must not queue behind a long write.
   *
   * @return the samples pruned
   * @throws dev.orchestrate.state.StoreException when the state stays busy (the caller goes on without the sample)
   */
  int recordSampleIfFree(String source, Instant at);
}
