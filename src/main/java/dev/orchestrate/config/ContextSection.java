package dev.orchestrate.config;

import static dev.orchestrate.config.ConfigLoader.BUILTIN_KEYS;
import static dev.orchestrate.config.ConfigLoader.COMMAND_KEYS;
import static dev.orchestrate.config.ConfigLoader.CONTEXT_KEYS;
import static dev.orchestrate.config.ConfigLoader.OPENAI_KEYS;

import dev.orchestrate.limits.Quote;
import dev.orchestrate.yaml.Values;
import dev.orchestrate.yaml.YamlNode;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * {@code context:}: the prompt window, the caps and the summarizer, for {@link ConfigLoader}.
 */
final class ContextSection extends SectionReader {
  ContextSection(SectionReader load) {
    super(load);
  }

  ContextConfig context(YamlNode.Mapping map) {
    problems.unknownKeys(map, CONTEXT_KEYS, "key", "context");
    Optional<YamlNode.Mapping> section = Optional.of(map);
    int min = ContextConfig.MIN_MAX_CHARS;
    return new ContextConfig(
        setting(section, "window_size", n -> values.integer(n, "context.window_size", 1, Ranges.WINDOW_SIZE))
            .orElse(ContextConfig.DEFAULT_WINDOW_SIZE),
        setting(section, "turn_max_chars", n -> values.integer(n, "context.turn_max_chars", min, Ranges.TURN_MAX_CHARS))
            .orElse(ContextConfig.DEFAULT_TURN_MAX_CHARS),
        setting(section, "summary_max_chars",
            n -> values.integer(n, "context.summary_max_chars", min, Ranges.SUMMARY_MAX_CHARS))
            .orElse(ContextConfig.DEFAULT_SUMMARY_MAX_CHARS),
        setting(section, "summarizer", this::summarizer).orElse(SummarizerConfig.defaults()));
  }

  private Optional<SummarizerConfig> summarizer(YamlNode node) {
    Optional<YamlNode.Mapping> map = values.mapping(node, "context.summarizer", "a map like {kind: builtin}");
    if (map.isEmpty() || map.get().entries().isEmpty()) {
      return Optional.empty();
    }
    Optional<YamlNode> kindNode = map.get().get("kind");
    if (kindNode.isEmpty()) {
      problems.at(map.get(), "context.summarizer has no kind; write {kind: builtin}");
      return Optional.empty();
    }
    Optional<SummarizerConfig.Kind> kind = values.choice(kindNode.get(), "context.summarizer.kind",
        Values.words(SummarizerConfig.Kind.values()));
    if (kind.isEmpty()) {
      return Optional.empty();
    }
    Optional<YamlNode.Mapping> section = map;
    SummarizerConfig.Fallback fallback = setting(section, "fallback", n -> values.choice(n,
        "context.summarizer.fallback", Values.words(SummarizerConfig.Fallback.values())))
        .orElse(SummarizerConfig.Fallback.BUILTIN);
    String prompt = setting(section, "prompt", n -> values.nonBlank(n, "context.summarizer.prompt",
        "non-empty text")).orElse(null);
    Duration timeout = setting(section, "timeout",
        n -> duration(n, "context.summarizer.timeout", Ranges.SUMMARIZER_TIMEOUT))
        .orElse(SummarizerConfig.DEFAULT_TIMEOUT);
    switch (kind.get()) {
      case BUILTIN -> {
        problems.unknownKeys(map.get(), BUILTIN_KEYS, "key", "context.summarizer of kind builtin");
        return Optional.of(SummarizerConfig.builtin(fallback, prompt));
      }
      case OPENAI -> {
        problems.unknownKeys(map.get(), OPENAI_KEYS, "key", "context.summarizer of kind openai");
        Optional<String> baseUrl = required(map.get(), "base_url", "an http(s) URL like https://api.openai.com/v1")
            .flatMap(url -> httpUrl(map.get().get("base_url").orElseThrow(), url));
        Optional<String> model = required(map.get(), "model", "a model name");
        String keyEnv = setting(section, "api_key_env", this::envName).orElse(null);
        if (baseUrl.isEmpty() || model.isEmpty()) {
          return Optional.empty();
        }
        return Optional.of(SummarizerConfig.openai(baseUrl.get(), model.get(), keyEnv, timeout, fallback, prompt));
      }
      case COMMAND -> {
        problems.unknownKeys(map.get(), COMMAND_KEYS, "key", "context.summarizer of kind command");
        Optional<YamlNode> commandNode = map.get().get("command");
        if (commandNode.isEmpty()) {
          problems.at(map.get(), "context.summarizer of kind command needs command: a list (argv), e.g. "
              + "[\"llm\", \"-m\", \"gpt-4o-mini\"]");
          return Optional.empty();
        }
        Optional<List<String>> command = values.strings(commandNode.get(), "context.summarizer.command", "",
            "argument");
        if (command.isPresent() && command.get().isEmpty()) {
          problems.at(commandNode.get(), "context.summarizer.command is empty: give the program and its arguments");
          return Optional.empty();
        }
        return command.map(c -> SummarizerConfig.command(c, timeout, fallback, prompt));
      }
      default -> throw new IllegalStateException("unhandled summarizer kind " + kind.get());
    }
  }

  private Optional<String> required(YamlNode.Mapping map, String key, String expectation) {
    Optional<YamlNode> node = map.get(key);
    if (node.isEmpty()) {
      problems.at(map, "context.summarizer of kind openai needs " + key + " (" + expectation + ")");
      return Optional.empty();
    }
    return values.nonBlank(node.get(), "context.summarizer." + key, expectation);
  }

  private Optional<String> httpUrl(YamlNode node, String url) {
    if (url.startsWith("http://") || url.startsWith("https://")) {
      try {
        java.net.URI.create(url);
        return Optional.of(url);
      } catch (IllegalArgumentException e) {
        // reported below
      }
    }
    problems.at(node, "context.summarizer.base_url must be an http(s) URL like https://api.openai.com/v1, got "
        + Quote.value(url));
    return Optional.empty();
  }

  private Optional<String> envName(YamlNode node) {
    return values.nonBlank(node, "context.summarizer.api_key_env", "an environment variable name").flatMap(name -> {
      if (ENV_NAME.matcher(name).matches()) {
        return Optional.of(name);
      }
      problems.at(node, "bad environment variable name " + Quote.value(name) + " in context.summarizer.api_key_env: "
          + "use letters, digits and '_', not starting with a digit");
      return Optional.empty();
    });
  }
}
