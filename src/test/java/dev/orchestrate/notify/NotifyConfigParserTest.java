package dev.orchestrate.notify;

import static dev.orchestrate.yaml.TestFiles.problems;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.orchestrate.config.Durations;
import dev.orchestrate.yaml.Problems;
import dev.orchestrate.yaml.TestFiles;
import dev.orchestrate.yaml.YamlNode;
import dev.orchestrate.yaml.YamlReader;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code notify:} section read from a real YAML file, as the config loader will hand it over. */
class NotifyConfigParserTest {
  @TempDir
  Path dir;

  private List<NotifySink> parse(String yaml) {
    Path file = new TestFiles(dir).write("orchestrate.yaml", yaml);
    Problems problems = new Problems(file.getFileName().toString());
    Optional<List<NotifySink>> sinks = YamlReader.read(file, problems, YamlReader.MAX_CONFIG_BYTES, "")
        .flatMap(root -> ((YamlNode.Mapping) root).get("notify"))
        .flatMap(node -> new NotifyConfigParser(problems, Durations::parse).sinks(node));
    problems.throwIfAny();
    return sinks.orElseThrow();
  }

  @Test
  void a_webhook_and_a_command_are_read_with_their_defaults() {
    List<NotifySink> sinks = parse("""
        notify:
          - type: webhook
            url: "https://hooks.example.com/orchestrate"
            secret_env: HOOK_SECRET
            headers: {Authorization: "Bearer abc"}
            events: [item_blocked, run_halted, budget_95]
            timeout: 3s
          - type: command
            name: pager
            run: "./page-me.sh --loud"
            events: [usage_limit_paused]
          - type: command
            run: ["python3", "hook.py"]
            events: [item_done]
        """);

    assertEquals(new NotifySink.Webhook("webhook-1", URI.create("https://hooks.example.com/orchestrate"),
        Optional.of("HOOK_SECRET"), Map.of("Authorization", "Bearer abc"),
        EnumSet.of(EventKind.ITEM_BLOCKED, EventKind.RUN_HALTED, EventKind.BUDGET_95),
        NotifySink.DEFAULT_CONNECT_TIMEOUT, Duration.ofSeconds(3)), sinks.get(0));
    assertEquals(new NotifySink.Command("pager", List.of("/bin/sh", "-c", "./page-me.sh --loud"),
        EnumSet.of(EventKind.USAGE_LIMIT_PAUSED), NotifySink.DEFAULT_TIMEOUT), sinks.get(1));
    assertEquals(new NotifySink.Command("command-3", List.of("python3", "hook.py"), EnumSet.of(EventKind.ITEM_DONE),
        NotifySink.DEFAULT_TIMEOUT), sinks.get(2));
  }

  @Test
  void an_empty_notify_means_no_sink() {
    assertEquals(List.of(), parse("notify:\n"));
  }

  @Test
  void every_problem_is_reported_at_its_place_with_how_to_fix_it() {
    List<String> problems = problems(() -> parse("""
        notify:
          - type: webhook
            url: "ftp://example.com"
            events: [item_blokced, run_halted]
            secret_env: "my secret"
            retries: 3
          - type: command
            events: []
          - type: pigeon
            events: [item_done]
          - url: "https://example.com"
          - type: webhook
            url: "http://localhost:9/h"
            events: item_done
            headers: {Content-Type: text/plain}
            timeout: 1h
        """));

    assertEquals(List.of(
        "3:10: url in notify[0] must be an http or https URL like https://hooks.example.com/orchestrate, "
            + "got 'ftp://example.com'",
        "4:14: unknown event 'item_blokced' in events of notify[0]; did you mean 'item_blocked'?",
        "5:17: bad environment variable name 'my secret' in secret_env of notify[0]: use letters, digits and '_', "
            + "not starting with a digit (the variable's name, not the secret)",
        "6:5: unknown key 'retries' in notify[0] (a webhook); expected one of: type, name, events, url, secret_env, "
            + "headers, timeout, connect_timeout",
        "7:5: notify[1] has no run: give the command, e.g. run: \"./notify.sh\" or run: [\"python3\", \"hook.py\"]",
        "8:13: events in notify[1] is empty: list the events this sink should receive (known: item_blocked, "
            + "item_done, awaiting_review, checks_red, changes_requested, run_halted, run_finished, budget_80, "
            + "budget_95, usage_limit_paused)",
        "9:11: type in notify[2] must be webhook or command, got 'pigeon'",
        "11:5: notify[3] has no type: give type: webhook or type: command",
        "11:5: notify[3] has no events: list the ones it should receive, e.g. events: [item_blocked, run_halted] "
            + "(known: item_blocked, item_done, awaiting_review, checks_red, changes_requested, run_halted, "
            + "run_finished, budget_80, budget_95, usage_limit_paused)",
        "14:13: events in notify[4] must be a list of event names, e.g. [item_done], got 'item_done'",
        "15:15: header 'Content-Type' in headers of notify[4] is set by orchestrate itself: remove it",
        "16:14: timeout in notify[4] must be at most 5m, got '1h'"), problems);
  }

  @Test
  void names_must_be_unique_and_a_bad_duration_says_how_to_write_one() {
    List<String> problems = problems(() -> parse("""
        notify:
          - {type: command, name: ops, run: "true", events: [item_done]}
          - {type: command, name: ops, run: "true", events: [item_done]}
          - {type: command, run: "true", events: [item_done], timeout: soon}
          - "https://example.com"
        """));

    assertEquals(List.of(
        "3:27: duplicate sink name 'ops' in notify[1] (first at line 2): give each sink its own name:",
        "4:64: timeout in notify[2]: bad duration 'soon': use a number with ms, s, m, h or d, e.g. 90s, 30m, 2h, 7d",
        "5:5: notify[3] must be a map like {type: webhook, url: \"https://hooks.example.com/orchestrate\", events: "
            + "[item_blocked]}, got 'https://example.com'"),
        problems);
  }

  @Test
  void notify_itself_must_be_a_list() {
    assertEquals(List.of("2:3: notify must be a list of sinks, each like {type: webhook, url: "
        + "\"https://hooks.example.com/orchestrate\", events: [item_blocked]}, got a map"),
        problems(() -> parse("notify:\n  type: webhook\n")));
  }
}
