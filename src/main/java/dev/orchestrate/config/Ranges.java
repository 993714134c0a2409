package dev.orchestrate.config;

import java.time.Duration;

/**
 * The largest value of every numeric setting, in the config and in the flags that override it.
 * Each maximum is safe: a run at the maximum of everything allocates a bounded amount of memory,
 * overflows no arithmetic, and binds no more SQL variables than SQLite takes. Each is also far
 * above any sensible value, so the range never gets in the way of real use (docs/configuration.md
 * lists them with the reasons).
 */
public final class Ranges {
  /**
   * Each agent holds two tails (stdout, stderr) of up to 3 bytes per character, beginning and end:
   * 1.2 MB an agent at this maximum, 77 MB for {@link #MAX_CONCURRENT} agents. The tails become
   * summaries and failure contexts, which the context caps cut further anyway.
   */
  public static final int OUTPUT_TAIL_CHARS = 100_000;
  /** A job's output.log on disk. */
  public static final long LOG_MAX_BYTES = 1L << 30;
  /**
   * The largest {@code backlog.max_bytes}, 1 GiB: a file of tens of millions of items, far past
   * what a run holds in a default heap (docs/benchmarks.md, "A million backlog items").
   */
  public static final long BACKLOG_MAX_BYTES = 1L << 30;
  public static final Duration AGENT_TIMEOUT = Duration.ofDays(7);
  public static final Duration KILL_GRACE = Duration.ofHours(1);
  /** agent.max_wait: a weekly limit is the longest a run could sensibly wait out. */
  public static final Duration MAX_WAIT = Duration.ofDays(8);
  /** Items in progress at once: each costs a few kilobytes of run state (summary, turns window). */
  public static final int MAX_WIP = 10_000;
  /** Agents at once: each is a process with two reader threads and its output tails. */
  public static final int MAX_CONCURRENT = 64;
  public static final int MAX_RETRIES = 100;
  public static final int CIRCUIT_BREAKER = 1_000;
  public static final int PHASE_CAP = 1_000_000;
  /**
   * Prompts carry {@code window_size} turns of up to {@code turn_max_chars} each, plus the summary
   * and the project memory: at these maxima a prompt is at most about 6 million characters.
   */
  public static final int WINDOW_SIZE = 50;
  public static final int TURN_MAX_CHARS = 100_000;
  public static final int SUMMARY_MAX_CHARS = 100_000;
  public static final Duration SUMMARIZER_TIMEOUT = Duration.ofHours(1);
  public static final int KEEP_RECENT = 1_000_000;
  public static final int BOOT_CONTEXT_CHARS = 1_000_000;
  public static final Duration MAINTENANCE_INTERVAL = Duration.ofDays(7);
  /**
   * Rows one retention pass deletes per structure: one SQL variable a row in one statement
   * (SQLite takes 32,766), and four times as many rows looked at.
   */
  public static final int RETENTION_BUDGET = 10_000;
  public static final int MAX_ROWS = 1_000_000_000;
  public static final Duration MAX_AGE = Duration.ofDays(3650);
  /**
   * {@code state.lease_timeout}: a runner renews its heartbeat every third of it, so at the minimum
   * a beat a second; an hour is as long as a dead runner's items should wait to be taken over.
   */
  public static final Duration LEASE_TIMEOUT_MIN = Duration.ofSeconds(3);
  public static final Duration LEASE_TIMEOUT = Duration.ofHours(1);
  /** {@code jobs --limit}: rows read and printed. */
  public static final int JOBS_LIMIT = 100_000;

  private Ranges() {
  }
}
