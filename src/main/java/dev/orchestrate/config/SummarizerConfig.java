package dev.orchestrate.config;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * {@code context.summarizer}: which summarizer condenses older turns, and what happens when it
 * fails. Fields that do not apply to {@code kind} are null (or empty).
 *
 * @param baseUrl   openai: the endpoint root, e.g. {@code https://api.openai.com/v1}
 * @param model     openai: the model name
 * @param apiKeyEnv openai: the environment variable holding the API key (null: no key sent)
 * @param command   command: argv; the prompt arrives on stdin, the summary is read from stdout
 * @param timeout   openai and command: per summarization call
 * @param prompt    extra instructions appended to the built-in summarization prompt (nullable)
 */
public record SummarizerConfig(
    Kind kind,
    String baseUrl,
    String model,
    String apiKeyEnv,
    List<String> command,
    Duration timeout,
    Fallback fallback,
    String prompt) {

  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

  /** The summarizer implementations. */
  public enum Kind {
    BUILTIN, OPENAI, COMMAND
  }

  /** What replaces a failed summarization: the builtin summarizer (degraded), or nothing. */
  public enum Fallback {
    BUILTIN, NONE
  }

  public SummarizerConfig {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(fallback, "fallback");
    command = command == null ? List.of() : List.copyOf(command);
    if (kind == Kind.OPENAI && (baseUrl == null || model == null)) {
      throw new IllegalArgumentException("the openai summarizer needs base_url and model");
    }
    if (kind == Kind.COMMAND && command.isEmpty()) {
      throw new IllegalArgumentException("the command summarizer needs a command");
    }
    if (timeout.isZero() || timeout.isNegative()) {
      throw new IllegalArgumentException("context.summarizer.timeout must be positive, got " + timeout);
    }
  }

  public static SummarizerConfig defaults() {
    return builtin(Fallback.BUILTIN, null);
  }

  static SummarizerConfig builtin(Fallback fallback, String prompt) {
    return new SummarizerConfig(Kind.BUILTIN, null, null, null, List.of(), DEFAULT_TIMEOUT, fallback, prompt);
  }

  public static SummarizerConfig openai(String baseUrl, String model, String apiKeyEnv, Duration timeout,
      Fallback fallback, String prompt) {
    return new SummarizerConfig(Kind.OPENAI, baseUrl, model, apiKeyEnv, List.of(), timeout, fallback, prompt);
  }

  public static SummarizerConfig command(List<String> command, Duration timeout, Fallback fallback, String prompt) {
    return new SummarizerConfig(Kind.COMMAND, null, null, null, command, timeout, fallback, prompt);
  }
}
