package dev.orchestrate.outcome;

/**
 * What an agent attempt consumed, as the agent reported it. Every figure is null when the agent did
 * not report it: unknown is never 0. {@code inputTokens} counts the input the model read fresh;
 * cache reads and writes are counted apart (Claude Code's convention; Codex's cached input is
 * moved out of its input count to match).
 *
 * <p>Agents are untrusted, their figures too: a figure is never negative, NaN or infinite (the
 * constructor refuses one), one job's figure is at most {@link #MAX_TOKENS} or
 * {@link #MAX_COST_USD} ({@link #bounded}; beyond it, it is unknown and {@code note} says why), and
 * sums saturate at the largest value instead of wrapping (docs/agents.md, "Usage").
 *
 * @param note why figures the agent reported are unknown here (not numbers, negative, not finite,
 *             above a ceiling), or null when every figure it reported was taken. It belongs to one
 *             job's report: a sum carries none.
 */
public record Usage(Long inputTokens, Long outputTokens, Long cacheReadTokens, Long cacheWriteTokens,
    Double costUsd, String note) {

  /**
   * The most tokens one figure of one job may count. 10^12 is a million full contexts of a million
   * tokens: no real attempt comes near it, so a figure past it is a bug or a lie. It is also the
   * largest {@code execution.max_tokens}.
   */
  public static final long MAX_TOKENS = 1_000_000_000_000L;
  /** The largest cost one job may report, in US dollars; also the largest {@code execution.max_cost_usd}. */
  public static final double MAX_COST_USD = 1_000_000;
  /** How a note begins; the problems follow, separated by "; ". */
  public static final String NOTE_PREFIX = "usage recorded as unknown: ";
  /** Why a token figure is refused: {@code (above the ceiling of 10^12 tokens per job)}. */
  public static final String ABOVE_TOKENS = "(above the ceiling of 10^12 tokens per job)";
  /** Why a cost is refused (a literal: a format here would load locale data on every start). */
  public static final String ABOVE_COST = "(above the ceiling of $1,000,000 per job)";

  public static final Usage UNKNOWN = new Usage(null, null, null, null, null);

  public Usage {
    for (Long tokens : new Long[] {inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens}) {
      if (tokens != null && tokens < 0) {
        throw new IllegalArgumentException("a token count is never negative, got " + tokens);
      }
    }
    if (costUsd != null && !(costUsd >= 0 && Double.isFinite(costUsd))) {
      throw new IllegalArgumentException("a cost is finite and not negative, got " + costUsd);
    }
  }

  /** Figures without a note. */
  public Usage(Long inputTokens, Long outputTokens, Long cacheReadTokens, Long cacheWriteTokens, Double costUsd) {
    this(inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, costUsd, null);
  }

  /**
   * Figures read back from storage, where a figure that cannot be usage (negative, not finite:
   * left by a version before these checks) is unknown. Large sums are kept: only one job's
   * figures have a ceiling.
   */
  public static Usage stored(Long inputTokens, Long outputTokens, Long cacheReadTokens, Long cacheWriteTokens,
      Double costUsd) {
    return new Usage(sane(inputTokens), sane(outputTokens), sane(cacheReadTokens), sane(cacheWriteTokens),
        costUsd == null || !(costUsd >= 0 && Double.isFinite(costUsd)) ? null : costUsd);
  }

  private static Long sane(Long tokens) {
    return tokens == null || tokens < 0 ? null : tokens;
  }

  public boolean isUnknown() {
    return inputTokens == null && outputTokens == null && cacheReadTokens == null && cacheWriteTokens == null
        && costUsd == null;
  }

  /**
   * All tokens the model processed (input, output, cache reads and writes), saturating at
   * {@link Long#MAX_VALUE}; null when none was reported.
   */
  public Long totalTokens() {
    return sum(sum(inputTokens, outputTokens), sum(cacheReadTokens, cacheWriteTokens));
  }

  /** Figure by figure, saturating; a figure known on either side is known in the sum, which has no note. */
  public Usage plus(Usage other) {
    return new Usage(sum(inputTokens, other.inputTokens), sum(outputTokens, other.outputTokens),
        sum(cacheReadTokens, other.cacheReadTokens), sum(cacheWriteTokens, other.cacheWriteTokens),
        sum(costUsd, other.costUsd));
  }

  /**
   * This job's own share of figures a CLI reports for its whole session (after a resume Claude Code's
   * {@code total_cost_usd} and Codex's token counts include the earlier attempts'):
   * {@code before} (what the session's earlier jobs were recorded with) taken off each figure named,
   * never below zero. Figures not named, and unknown ones, are kept as they are.
   */
  public Usage withoutEarlier(Usage before, boolean tokens, boolean cost) {
    return new Usage(tokens ? less(inputTokens, before.inputTokens) : inputTokens,
        tokens ? less(outputTokens, before.outputTokens) : outputTokens,
        tokens ? less(cacheReadTokens, before.cacheReadTokens) : cacheReadTokens,
        tokens ? less(cacheWriteTokens, before.cacheWriteTokens) : cacheWriteTokens,
        cost && costUsd != null && before.costUsd != null ? Double.valueOf(Math.max(0, costUsd - before.costUsd))
            : costUsd,
        note);
  }

  private static Long less(Long a, Long b) {
    return a == null || b == null ? a : Long.valueOf(Math.max(0, a - b));
  }

  /** These figures with {@code problem} added to the note (see {@link #NOTE_PREFIX}). */
  public Usage noting(String problem) {
    return new Usage(inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, costUsd,
        note == null ? NOTE_PREFIX + problem : note + "; " + problem);
  }

  /**
   * One job's usage within the ceilings: a figure above {@link #MAX_TOKENS} or
   * {@link #MAX_COST_USD} is unknown, and the note says which and why. This usage itself when
   * every figure is within them.
   */
  public Usage bounded() {
    Usage u = this;
    if (over(inputTokens)) {
      u = new Usage(null, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens, u.costUsd, u.note)
          .noting(tooMany("input tokens", inputTokens));
    }
    if (over(outputTokens)) {
      u = new Usage(u.inputTokens, null, u.cacheReadTokens, u.cacheWriteTokens, u.costUsd, u.note)
          .noting(tooMany("output tokens", outputTokens));
    }
    if (over(cacheReadTokens)) {
      u = new Usage(u.inputTokens, u.outputTokens, null, u.cacheWriteTokens, u.costUsd, u.note)
          .noting(tooMany("cache read tokens", cacheReadTokens));
    }
    if (over(cacheWriteTokens)) {
      u = new Usage(u.inputTokens, u.outputTokens, u.cacheReadTokens, null, u.costUsd, u.note)
          .noting(tooMany("cache write tokens", cacheWriteTokens));
    }
    if (costUsd != null && costUsd > MAX_COST_USD) {
      u = new Usage(u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens, null, u.note)
          .noting("cost " + costUsd + " " + ABOVE_COST);
    }
    return u;
  }

  private static boolean over(Long tokens) {
    return tokens != null && tokens > MAX_TOKENS;
  }

  private static String tooMany(String figure, long tokens) {
    return figure + " " + tokens + " " + ABOVE_TOKENS;
  }

  /** {@code a + b}, clamped to the range of a long instead of wrapping. */
  public static long add(long a, long b) {
    long sum = a + b;
    // Overflow happened when both operands have the sign the result lacks.
    if (((a ^ sum) & (b ^ sum)) < 0) {
      return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return sum;
  }

  static Double sum(Double a, Double b) {
    if (a == null) {
      return b;
    }
    if (b == null) {
      return a;
    }
    double sum = a + b;
    return Double.isInfinite(sum) ? Double.MAX_VALUE : sum; // both are finite and not negative
  }

  static Long sum(Long a, Long b) {
    return a == null ? b : b == null ? a : Long.valueOf(add(a, b));
  }
}
