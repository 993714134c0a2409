package dev.orchestrate.context;

import dev.orchestrate.backlog.SummarizerConfig;
import java.nio.file.Path;
import java.util.function.Function;

/** Builds the summarizer named by {@code context.summarizer}. */
public final class Summarizers {
  private Summarizers() {
  }

  /**
   * @param workDir  where a command summarizer runs (the backlog's directory)
   * @param env      environment lookup for the openai API key
   */
  public static Summarizer create(SummarizerConfig config, int summaryMaxChars, Path workDir,
      Function<String, String> env) {
    return switch (config.kind()) {
      case BUILTIN -> new BuiltinSummarizer(summaryMaxChars);
      case OPENAI -> new OpenAiSummarizer(config.baseUrl(), config.model(), config.apiKeyEnv(), config.timeout(), env);
      case COMMAND -> new CommandSummarizer(config.command(), workDir, config.timeout());
    };
  }

  /** The stand-in for a failed summarization, or null when {@code fallback: none}. */
  public static Summarizer fallback(SummarizerConfig config, int summaryMaxChars) {
    return config.fallback() == SummarizerConfig.Fallback.NONE ? null : new BuiltinSummarizer(summaryMaxChars);
  }
}
