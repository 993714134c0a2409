package dev.orchestrate.config;

import static dev.orchestrate.config.ConfigLoader.BACKLOG_SOURCE_KEYS;

import dev.orchestrate.limits.Quote;
import dev.orchestrate.yaml.Names;
import dev.orchestrate.yaml.YamlNode;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code backlog.source:}: the command that prints the backlog and its transition commands, for {@link ConfigLoader}. */
final class BacklogSection extends SectionReader {
  static final List<String> HOOKS = List.of("on_done", "on_blocked", "on_awaiting_review");
  private static final Pattern PLACEHOLDER = Pattern.compile("\\{([a-z_]+)\\}");

  BacklogSection(SectionReader load) {
    super(load);
  }

  /** The source, or empty when it has problems (each reported). */
  Optional<BacklogSourceConfig> source(YamlNode.Mapping map) {
    problems.unknownKeys(map, BACKLOG_SOURCE_KEYS, "key", "backlog.source");
    Optional<YamlNode.Mapping> section = Optional.of(map);
    Duration timeout = setting(section, "timeout", n -> duration(n, "backlog.source.timeout", Ranges.AGENT_TIMEOUT))
        .orElse(BacklogSourceConfig.DEFAULT_TIMEOUT);
    Duration refresh = setting(section, "refresh",
        n -> duration(n, "backlog.source.refresh", Ranges.MAINTENANCE_INTERVAL)
            .filter(d -> {
              if (d.compareTo(Duration.ofSeconds(1)) < 0) {
                problems.at(n, "backlog.source.refresh must be at least 1s, got " + n.describe());
                return false;
              }
              return true;
            }))
        .orElse(BacklogSourceConfig.DEFAULT_REFRESH);
    String idField = setting(section, "id_field", n -> values.nonBlank(n, "backlog.source.id_field",
        "a field name like number")).orElse(BacklogSourceConfig.DEFAULT_ID_FIELD);
    String idPrefix = setting(section, "id_prefix", n -> values.text(n, "backlog.source.id_prefix", "text like GH-")
        .filter(p -> {
          if (!p.isEmpty() && !Names.isValid(p)) {
            problems.at(n, "bad backlog.source.id_prefix " + Quote.value(p) + ": " + Names.RULE);
            return false;
          }
          return true;
        })).orElse("");
    Optional<ProjectCommand> command = map.get("command").isEmpty() ? Optional.empty()
        : command(map.get("command").get(), "backlog", timeout, false);
    if (map.get("command").isEmpty()) {
      problems.at(map, "backlog.source has no command: give the command that prints the items as JSON, e.g. "
          + "command: \"gh issue list --label orchestrate --json number,title,body,labels\"");
    }
    ProjectCommand[] hooks = new ProjectCommand[HOOKS.size()];
    boolean ok = command.isPresent();
    for (int i = 0; i < HOOKS.size(); i++) {
      Optional<YamlNode> node = map.get(HOOKS.get(i));
      if (node.isPresent() && !off(node.get())) {
        Optional<ProjectCommand> hook = command(node.get(), HOOKS.get(i), timeout, true);
        ok &= hook.isPresent();
        hooks[i] = hook.orElse(null);
      }
    }
    if (!ok) {
      return Optional.empty();
    }
    return Optional.of(new BacklogSourceConfig(command.get(), refresh, idField, idPrefix, hooks[0], hooks[1],
        hooks[2]));
  }

  /** One string (run by {@code /bin/sh -c}) or a list (the argv); a hook's placeholders known. */
  private Optional<ProjectCommand> command(YamlNode node, String name, Duration timeout, boolean placeholders) {
    String subject = "backlog.source." + (name.equals("backlog") ? "command" : name);
    Optional<ProjectCommand> command;
    if (node instanceof YamlNode.Sequence) {
      Optional<List<String>> argv = values.strings(node, subject, "", "argument");
      if (argv.isPresent() && argv.get().isEmpty()) {
        problems.at(node, subject + " is empty: give the program and its arguments");
        return Optional.empty();
      }
      command = argv.map(a -> new ProjectCommand(name, a, String.join(" ", a), timeout));
    } else {
      command = values.nonBlank(node, subject, "a command like \"gh issue list --json number,title\"")
          .map(text -> ProjectCommand.shell(name, text, timeout));
    }
    if (command.isPresent() && placeholders) {
      Matcher m = PLACEHOLDER.matcher(command.get().text());
      while (m.find()) {
        if (!BacklogSourceConfig.PLACEHOLDERS.contains(m.group(1))) {
          problems.at(node, "unknown placeholder {" + m.group(1) + "} in " + subject + "; known: "
              + String.join(", ", BacklogSourceConfig.PLACEHOLDERS.stream().map(p -> "{" + p + "}").toList()));
          return Optional.empty();
        }
      }
    }
    return command;
  }
}
