package dev.orchestrate.config;

import static dev.orchestrate.yaml.TestFiles.problems;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.orchestrate.yaml.TestFiles;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code backlog.source}: its keys, defaults and mistakes. */
class BacklogSourceConfigTest {
  @TempDir
  Path dir;

  private Path write(String yaml) {
    return new TestFiles(dir).write("orchestrate.yaml", yaml);
  }

  @Test
  void without_a_source_the_backlog_is_the_file() {
    assertNull(ConfigLoader.load(write("backlog: {max_bytes: 1MiB}\n")).backlogSource());
  }

  @Test
  void a_source_with_only_a_command_takes_the_defaults() {
    BacklogSourceConfig source = ConfigLoader.load(write("""
        backlog:
          source:
            command: "gh issue list --json number,title"
        """)).backlogSource();
    assertEquals(List.of("/bin/sh", "-c", "gh issue list --json number,title"), source.command().argv());
    assertEquals(BacklogSourceConfig.DEFAULT_TIMEOUT, source.command().timeout());
    assertEquals(Duration.ofSeconds(60), source.refresh());
    assertEquals("number", source.idField());
    assertEquals("", source.idPrefix());
    assertNull(source.onDone());
    assertNull(source.onBlocked());
    assertNull(source.onAwaitingReview());
  }

  @Test
  void every_key_is_read() {
    BacklogSourceConfig source = ConfigLoader.load(write("""
        backlog:
          source:
            command: ["linear-cli", "i", "list", "--output", "json"]
            timeout: 20s
            refresh: 5m
            id_field: identifier
            id_prefix: LIN-
            on_done: ["linear-cli", "i", "update", "{source_id}", "-s", "Done"]
            on_blocked: "echo {id} {reason}"
            on_awaiting_review: "echo {title} {pull_request}"
        """)).backlogSource();
    assertEquals(List.of("linear-cli", "i", "list", "--output", "json"), source.command().argv());
    assertEquals(Duration.ofSeconds(20), source.onDone().timeout());
    assertEquals(Duration.ofMinutes(5), source.refresh());
    assertEquals("identifier", source.idField());
    assertEquals("LIN-", source.idPrefix());
    assertEquals("on_done", source.onDone().name());
    assertEquals("echo {id} {reason}", source.onBlocked().text());
    assertEquals("echo {title} {pull_request}", source.hook("on_awaiting_review").text());
  }

  @Test
  void mistakes_are_named_at_their_line() {
    assertEquals(List.of(
        "3:5: unknown key 'comand' in backlog.source; did you mean 'command'?",
        "3:5: backlog.source has no command: give the command that prints the items as JSON, e.g. command: "
            + "\"gh issue list --label orchestrate --json number,title,body,labels\"",
        "4:14: backlog.source.refresh must be at least 1s, got '500ms'",
        "5:16: bad backlog.source.id_prefix 'GH 1': use only letters, digits, '.', '_' and '-'",
        "6:14: unknown placeholder {number} in backlog.source.on_done; known: {id}, {source_id}, {title}, {reason}, "
            + "{pull_request}"),
        problems(() -> ConfigLoader.load(write("""
            backlog:
              source:
                comand: "gh issue list"
                refresh: 500ms
                id_prefix: "GH 1"
                on_done: "gh issue close {number}"
            """))));
  }
}
