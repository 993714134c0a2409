package dev.orchestrate.config;

import static dev.orchestrate.config.ConfigLoader.PROJECT_COMMAND_KEYS;

import dev.orchestrate.limits.Quote;
import dev.orchestrate.yaml.Names;
import dev.orchestrate.yaml.Problems;
import dev.orchestrate.yaml.Values;
import dev.orchestrate.yaml.YamlNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The readers every section of {@code orchestrate.yaml} shares (a section, a setting, a duration, an
 * amount, an argv, project commands), over the one {@link Problems} of a load: the base of
 * {@link ConfigLoader} and of its per-section readers.
 */
abstract class SectionReader {
  final Path directory;
  final Problems problems;
  final Values values;

  SectionReader(Path directory, Problems problems, Values values) {
    this.directory = directory;
    this.problems = problems;
    this.values = values;
  }

  SectionReader(SectionReader load) {
    this(load.directory, load.problems, load.values);
  }

  static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  static final String COMMAND_EXAMPLE = "[\"bash\", \"agent.sh\"]";

  /**
   * A list of project commands ({@code verify:} of a pipeline or phase, {@code workspace.setup:}):
   * each a map of {@code name}, {@code run} (one string, run by {@code /bin/sh -c}, or a list: the
   * argv) and an optional {@code timeout}; names valid and unique within the list.
   */
  Optional<List<ProjectCommand>> projectCommands(YamlNode node, String subject) {
    if (node instanceof YamlNode.Scalar scalar && scalar.isNull()) {
      return Optional.of(List.of());
    }
    if (!(node instanceof YamlNode.Sequence list)) {
      problems.expected(node, subject, "a list of commands, each like {name: tests, run: \"npm test\", timeout: 10m}");
      return Optional.empty();
    }
    List<ProjectCommand> out = new ArrayList<>();
    Map<String, Integer> seen = new LinkedHashMap<>();
    boolean ok = true;
    for (int i = 0; i < list.items().size(); i++) {
      String path = subject + "[" + i + "]";
      YamlNode item = list.items().get(i);
      if (!(item instanceof YamlNode.Mapping map)) {
        problems.expected(item, path, "a map like {name: tests, run: \"npm test\", timeout: 10m}");
        ok = false;
        continue;
      }
      problems.unknownKeys(map, PROJECT_COMMAND_KEYS, "key", path);
      Optional<String> name = map.get("name").isEmpty() ? Optional.empty()
          : values.nonBlank(map.get("name").get(), "name in " + path, "a name like tests");
      if (map.get("name").isEmpty()) {
        problems.at(map, path + " has no name (it names the command's log and what the agent is told)");
      } else if (name.isPresent() && !Names.isValidName(name.get())) {
        problems.at(map.get("name").get(), "bad command name " + Quote.value(name.get()) + " in " + path + ": "
            + Names.NAME_RULE);
        name = Optional.empty();
      } else if (name.isPresent()) {
        Integer first = seen.putIfAbsent(name.get(), map.get("name").get().line());
        if (first != null) {
          problems.at(map.get("name").get(), "duplicate command " + Quote.value(name.get()) + " in " + subject
              + " (first at line " + first + ")");
          name = Optional.empty();
        }
      }
      Optional<YamlNode> run = map.get("run");
      Optional<List<String>> argv = Optional.empty();
      String text = null;
      if (run.isEmpty()) {
        problems.at(map, path + " has no run: give the command, e.g. run: \"npm test\"");
      } else if (run.get() instanceof YamlNode.Sequence) {
        argv = values.strings(run.get(), "run", path, "argument");
        if (argv.isPresent() && argv.get().isEmpty()) {
          problems.at(run.get(), "run in " + path + " is empty: give the program and its arguments");
          argv = Optional.empty();
        }
        text = argv.map(a -> String.join(" ", a)).orElse(null);
      } else {
        Optional<String> shell = values.nonBlank(run.get(), "run in " + path, "a command like \"npm test\"");
        text = shell.orElse(null);
        argv = shell.map(t -> List.of(ProjectCommand.SHELL, "-c", t));
      }
      Duration timeout = map.get("timeout").isPresent()
          ? duration(map.get("timeout").get(), "timeout in " + path, Ranges.AGENT_TIMEOUT).orElse(null)
          : ProjectCommand.DEFAULT_TIMEOUT;
      if (name.isEmpty() || argv.isEmpty() || timeout == null) {
        ok = false;
        continue;
      }
      out.add(new ProjectCommand(name.get(), argv.get(), text, timeout));
    }
    return ok ? Optional.of(out) : Optional.empty();
  }

  /** {@code none} or an empty value: no limit. */
  static boolean off(YamlNode node) {
    return node instanceof YamlNode.Scalar scalar
        && (scalar.kind() == YamlNode.Scalar.Kind.NULL || "none".equals(scalar.text()));
  }

  /** A top-level section; absent or empty reads as an empty map, a wrong type is reported. */
  Optional<YamlNode.Mapping> section(YamlNode.Mapping root, String key) {
    return root.get(key).flatMap(n -> values.mapping(n, key, "a map"));
  }

  static <T> Optional<T> setting(Optional<YamlNode.Mapping> section, String key,
      Function<YamlNode, Optional<T>> read) {
    return section.flatMap(s -> s.get(key)).flatMap(read);
  }

  /** A spend limit in US dollars: a positive number such as 5 or 0.50. */
  Optional<Double> maxCostUsd(YamlNode node) {
    return usd(node, "execution.max_cost_usd");
  }

  Optional<Double> usd(YamlNode node, String subject) {
    if (node instanceof YamlNode.Scalar scalar
        && (scalar.kind() == YamlNode.Scalar.Kind.INTEGER || scalar.kind() == YamlNode.Scalar.Kind.FLOAT)) {
      try {
        double usd = Double.parseDouble(scalar.text());
        if (usd > 0 && usd <= 1_000_000) {
          return Optional.of(usd);
        }
        problems.at(node, subject + " must be more than 0 and at most 1000000 (US dollars), got " + scalar.text());
        return Optional.empty();
      } catch (NumberFormatException e) {
        // reported below
      }
    }
    problems.expected(node, subject, "an amount in US dollars such as 5 or 0.50");
    return Optional.empty();
  }

  /** A token limit: a positive whole number up to 10^12. */
  Optional<Long> maxTokens(YamlNode node) {
    return tokens(node, "execution.max_tokens");
  }

  Optional<Long> tokens(YamlNode node, String subject) {
    if (node instanceof YamlNode.Scalar scalar && scalar.kind() == YamlNode.Scalar.Kind.INTEGER) {
      java.math.BigInteger value = scalar.integer();
      if (value.signum() > 0 && value.compareTo(java.math.BigInteger.TEN.pow(12)) <= 0) {
        return Optional.of(value.longValue());
      }
      problems.at(node, subject + " must be at least 1 and at most 1000000000000, got " + scalar.text());
      return Optional.empty();
    }
    problems.expected(node, subject, "a number of tokens such as 2000000");
    return Optional.empty();
  }

  Optional<List<String>> command(YamlNode node) {
    if (node instanceof YamlNode.Scalar scalar && scalar.kind() == YamlNode.Scalar.Kind.STRING) {
      List<String> words = List.of(scalar.text().strip().split("\\s+"));
      String example = scalar.text().isBlank() ? COMMAND_EXAMPLE
          : words.stream().map(w -> "\"" + w + "\"").collect(Collectors.joining(", ", "[", "]"));
      problems.at(node, "agent.command must be a list (argv, no shell), not a string: write it as "
          + example);
      return Optional.empty();
    }
    Optional<List<String>> command = values.strings(node, "agent.command", "", "argument");
    if (command.isPresent() && command.get().isEmpty()) {
      problems.at(node, "agent.command is empty: give the program and its arguments, e.g. "
          + COMMAND_EXAMPLE);
      return Optional.empty();
    }
    return command;
  }

  Optional<Duration> duration(YamlNode node, String subject, Duration max) {
    return duration(node, subject).flatMap(d -> {
      if (d.compareTo(max) <= 0) {
        return Optional.of(d);
      }
      String limit = max.toHoursPart() == 0 && max.toMinutesPart() == 0 && max.toSecondsPart() == 0
          && max.toMillisPart() == 0 ? max.toDays() + "d" : Durations.format(max);
      problems.at(node, subject + " must be at most " + limit + ", got " + node.describe());
      return Optional.empty();
    });
  }

  Optional<Duration> duration(YamlNode node, String subject) {
    return values.text(node, subject, "a duration like 90s, 30m or 2h").flatMap(text -> {
      try {
        return Optional.of(Durations.parse(text));
      } catch (IllegalArgumentException e) {
        problems.at(node, subject + ": " + e.getMessage());
        return Optional.empty();
      }
    });
  }
}
