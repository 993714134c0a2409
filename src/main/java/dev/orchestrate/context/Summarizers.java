package dev.orchestrate.context;

import dev.orchestrate.config.SummarizerConfig;
import java.nio.file.Path;
import java.util.function.Function;

/**
 * Builds the summarizer named by {@code context.summarizer}. The builtin one is not given the
 * summary cap: {@link SlidingWindowSummarizer} cuts what it stores to {@code summary_max_chars}
 * with the same marker, and counts the cut as a truncated write, which a cut made inside the
 * summarizer would hide. The text stored is the same either way.
 */
final class Summarizers {
  /** The builtin summarizer's own cap here: none, its output is at most as long as its input. */
  private static final int UNCAPPED = Integer.MAX_VALUE;

  private Summarizers() {
  }

  /**
   * @param workDir  where a command summarizer runs (the backlog's directory)
   * @param env      environment lookup for the openai API key
   */
  static Summarizer create(SummarizerConfig config, Path workDir,
      Function<String, String> env) {
    return switch (config.kind()) {
      case BUILTIN -> new BuiltinSummarizer(UNCAPPED);
      case OPENAI -> new OpenAiSummarizer(config.baseUrl(), config.model(), config.apiKeyEnv(), config.timeout(), env);
      case COMMAND -> new CommandSummarizer(config.command(), workDir, config.timeout());
    };
  }

  /** The stand-in for a failed summarization, or null when {@code fallback: none}. */
  static Summarizer fallback(SummarizerConfig config) {
    return config.fallback() == SummarizerConfig.Fallback.NONE ? null : new BuiltinSummarizer(UNCAPPED);
  }
}
