package dev.orchestrate.config;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * The {@code retention} section (docs/how-it-works.md): how much of each growing structure is kept, and
 * how maintenance removes the rest — incrementally, at most {@code budget} rows per structure per
 * pass, one pass at the end of a scheduler tick when {@code maintenanceInterval} has elapsed, and
 * every pass it takes to finish in {@code orchestrate compact}.
 *
 * @param maintenanceInterval time between two maintenance passes of a run
 * @param budget              rows deleted per structure per pass, at most (>= 1)
 * @param jobs                job history (never a running job); a job's log directory goes with its row
 * @param turns               turn history; only turns covered by the item's persisted summary are
 *                            deleted (summarize-then-prune)
 * @param events              the event log's routine rows; load-bearing events are never deleted
 * @param statsSamples        the samples behind the trend of {@code orchestrate stats}
 * @param worktrees           the git worktrees of items that are done or blocked (execution.workspace:
 *                            worktree); a worktree of an item still at work is never removed
 */
public record RetentionConfig(Duration maintenanceInterval, int budget, Policy jobs, Policy turns, Policy events,
    Policy statsSamples, WorktreePolicy worktrees) {
  public static final Duration DEFAULT_INTERVAL = Duration.ofMinutes(1);
  /**
   * {@code max_rows} is a ceiling: maintenance prunes a structure down to this share of it, so that
   * what accumulates between two passes stays clear of the limit and {@code stats} reads ok (warn
   * at 85 %) while retention keeps up.
   */
  public static final int TARGET_PERCENT = 60;
  public static final int DEFAULT_BUDGET = 500;
  public static final int DEFAULT_EVENTS_KEEP_RECENT = 10_000;

  public RetentionConfig {
    if (maintenanceInterval.isNegative() || maintenanceInterval.isZero()) {
      throw new IllegalArgumentException("maintenance_interval must be more than zero");
    }
    if (budget < 1) {
      throw new IllegalArgumentException("budget must be at least 1, got " + budget);
    }
    worktrees = worktrees == null ? WorktreePolicy.DEFAULT : worktrees;
  }

  /** The policies with the default worktree retention. */
  public RetentionConfig(Duration maintenanceInterval, int budget, Policy jobs, Policy turns, Policy events,
      Policy statsSamples) {
    this(maintenanceInterval, budget, jobs, turns, events, statsSamples, WorktreePolicy.DEFAULT);
  }

  /**
   * How many worktrees of finished items are kept, and for how long after the item finished.
   *
   * @param discardUncommitted whether retention may remove a blocked item's worktree that holds
   *                           uncommitted changes (someone's fix in progress); off by default
   */
  public record WorktreePolicy(Policy policy, boolean discardUncommitted) {
    public static final WorktreePolicy DEFAULT = new WorktreePolicy(Policy.of(100, Duration.ofDays(7)), false);

    public WorktreePolicy {
      java.util.Objects.requireNonNull(policy, "policy");
    }
  }

  /** Defaults that keep a session of any length bounded. */
  public static RetentionConfig defaults() {
    return new RetentionConfig(DEFAULT_INTERVAL, DEFAULT_BUDGET,
        Policy.of(10_000, Duration.ofDays(30)),
        Policy.of(50_000, Duration.ofDays(30)),
        Policy.of(DEFAULT_EVENTS_KEEP_RECENT, Duration.ofDays(30)),
        Policy.of(2_000, Duration.ofDays(7)));
  }

  /**
   * How much of one structure is kept: at most {@code maxRows} rows (of those retention may
   * delete) and nothing older than {@code maxAge}; either or both may be absent (no limit).
   */
  public record Policy(Integer maxRows, Duration maxAge) {
    public static final Policy NONE = new Policy(null, null);

    public Policy {
      if (maxRows != null && maxRows < 0) {
        throw new IllegalArgumentException("max_rows must be 0 or more, got " + maxRows);
      }
      if (maxAge != null && (maxAge.isNegative() || maxAge.isZero())) {
        throw new IllegalArgumentException("max_age must be more than zero");
      }
    }

    public static Policy of(Integer maxRows, Duration maxAge) {
      return new Policy(maxRows, maxAge);
    }

    /** The rows maintenance keeps: {@value RetentionConfig#TARGET_PERCENT} % of max_rows. */
    public OptionalInt targetRows() {
      return maxRows == null ? OptionalInt.empty() : OptionalInt.of((int) ((long) maxRows * TARGET_PERCENT / 100));
    }

    public OptionalInt rows() {
      return maxRows == null ? OptionalInt.empty() : OptionalInt.of(maxRows);
    }

    public Optional<Duration> age() {
      return Optional.ofNullable(maxAge);
    }
  }
}
