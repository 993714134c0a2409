package dev.orchestrate.jobs;

/**
 * What an agent attempt consumed, as the agent reported it. Every figure is null when the agent did
 * not report it: unknown is never 0. {@code inputTokens} counts the input the model read fresh;
 * cache reads and writes are counted apart (Claude Code's convention; Codex's cached input is
 * moved out of its input count to match).
 */
public record Usage(Long inputTokens, Long outputTokens, Long cacheReadTokens, Long cacheWriteTokens,
    Double costUsd) {

  public static final Usage UNKNOWN = new Usage(null, null, null, null, null);

  public boolean isUnknown() {
    return inputTokens == null && outputTokens == null && cacheReadTokens == null && cacheWriteTokens == null
        && costUsd == null;
  }

  /** All tokens the model processed (input, output, cache reads and writes); null when none was reported. */
  public Long totalTokens() {
    return sum(sum(inputTokens, outputTokens), sum(cacheReadTokens, cacheWriteTokens));
  }

  /** Figure by figure; a figure known on either side is known in the sum. */
  public Usage plus(Usage other) {
    return new Usage(sum(inputTokens, other.inputTokens), sum(outputTokens, other.outputTokens),
        sum(cacheReadTokens, other.cacheReadTokens), sum(cacheWriteTokens, other.cacheWriteTokens),
        sum(costUsd, other.costUsd));
  }

  static Double sum(Double a, Double b) {
    if (a == null) {
      return b;
    }
    return b == null ? a : Double.valueOf(a + b);
  }

  static Long sum(Long a, Long b) {
    return a == null ? b : b == null ? a : Long.valueOf(a + b);
  }
}
