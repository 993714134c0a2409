package dev.orchestrate.backlog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.BacklogSourceConfig;
import dev.orchestrate.config.Config;
import dev.orchestrate.config.ProjectCommand;
import dev.orchestrate.yaml.Problem;
import dev.orchestrate.yaml.ValidationException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code backlog.source}: a command's JSON as items, its mistakes, and its refresh during a run. */
class CommandBacklogTest {
  @TempDir
  Path dir;

  private static Config config(String command, String prefix) {
    return Config.defaults().withBacklogSource(new BacklogSourceConfig(
        ProjectCommand.shell("backlog", command, Duration.ofSeconds(10)), Duration.ofSeconds(60), "number", prefix,
        null, null, null));
  }

  private Backlog parse(String json) {
    return BacklogJson.parse(json, dir.resolve("backlog.yaml"), config("true", "GH-"));
  }

  private String problem(String json) {
    ValidationException e = assertThrows(ValidationException.class, () -> parse(json));
    return e.getMessage();
  }

  @Test
  void gh_issues_become_items_with_a_prefixed_id_their_body_and_their_labels() {
    Backlog backlog = parse("""
        [{"number": 12, "title": "Fix login", "body": "It fails.", "url": "https://x/12",
          "labels": [{"id": "L1", "name": "bug", "color": "f00"}, {"name": "priority:high"}]},
         {"number": 13, "title": "Add logout", "body": null, "labels": ["pipeline:feature", "ui"],
          "depends_on": [12]}]""");
    assertEquals(2, backlog.items().size());
    BacklogItem first = backlog.items().get(0);
    assertEquals("GH-12", first.id());
    assertEquals("Fix login", first.title());
    assertEquals("It fails.", first.description());
    assertEquals(List.of("bug"), first.tags());
    assertEquals(Priority.HIGH, first.priority());
    BacklogItem second = backlog.items().get(1);
    assertEquals("", second.description());
    assertEquals(List.of("ui"), second.tags());
    assertEquals("feature", second.pipeline());
    assertEquals(List.of("GH-12"), second.dependsOn());
  }

  @Test
  void an_empty_array_is_an_empty_backlog() {
    assertEquals(List.of(), parse("[]").items());
  }

  @Test
  void output_that_is_not_json_is_one_line_naming_the_command() {
    String message = problem("gh: not logged in");
    assertTrue(message.startsWith("backlog.source.command (true): printed no JSON"), message);
    assertEquals(1, message.lines().count(), message);
  }

  @Test
  void json_that_is_not_an_array_nothing_at_all_and_non_objects_are_refused() {
    assertTrue(problem("{\"items\": []}").endsWith("printed a JSON object, not an array of items"));
    assertTrue(problem("").contains("printed nothing"));
    assertTrue(problem("[1]").endsWith("element 1 of 1 is a JSON number, not an object"));
  }

  @Test
  void an_element_without_an_id_and_a_duplicate_id_are_named() {
    assertTrue(problem("[{\"title\": \"a\"}]")
        .endsWith("element 1 of 1 has no id: its field 'number' (backlog.source.id_field) must be a number or text, "
            + "got nothing"));
    assertTrue(problem("[{\"number\": 1, \"title\": \"a\"}, {\"number\": \"1\", \"title\": \"b\"}]")
        .endsWith("duplicate id 'GH-1' (elements 1 and 2)"));
  }

  @Test
  void items_are_checked_as_the_backlog_files_are() {
    String message = problem("[{\"number\": 1}, {\"number\": 2, \"title\": \"b\", \"labels\": [\"pipeline:nope\"],"
        + " \"depends_on\": [9]}]");
    assertTrue(message.contains("item GH-1 has no title"), message);
    assertTrue(message.contains("unknown pipeline 'nope'"), message);
    assertTrue(message.contains("depends on unknown item 'GH-9'"), message);
  }

  @Test
  void a_failing_command_refuses_the_start_with_its_exit_and_stderr() {
    ValidationException e = assertThrows(ValidationException.class,
        () -> new CommandBacklog(dir.resolve("backlog.yaml"), config("echo 'gh: auth required' >&2; exit 4", ""),
            System.getenv(), Clock.systemUTC()));
    assertEquals("backlog.source.command (echo 'gh: auth required' >&2; exit 4): failed: exit 4: gh: auth required",
        e.getMessage());
  }

  @Test
  void output_beyond_backlog_max_bytes_is_refused() {
    Config config = config("yes '[]' | head -c 5000", "");
    Config capped = new Config(config.source(), config.agent(), config.execution(), config.defaultPipeline(),
        config.pipelines(), config.context(), config.memoryKeepRecent(), config.memoryBootContextChars(),
        config.retention(), config.state(), config.budget(), config.agents(), config.notifications(), 1000,
        config.backlogSource());
    ValidationException e = assertThrows(ValidationException.class,
        () -> new CommandBacklog(dir.resolve("backlog.yaml"), capped, System.getenv(), Clock.systemUTC()));
    assertTrue(e.getMessage().endsWith("failed: printed more than 1000 bytes (backlog.max_bytes)"), e.getMessage());
  }

  @Test
  void a_refresh_hands_over_a_changed_output_keeps_the_last_good_one_on_failure_and_reports_it_once()
      throws Exception {
    Path output = dir.resolve("issues.json");
    Files.writeString(output, "[{\"number\": 1, \"title\": \"a\"}]");
    MutableClock clock = new MutableClock();
    CommandBacklog source = new CommandBacklog(dir.resolve("backlog.yaml"), config("cat issues.json", ""),
        System.getenv(), clock);
    assertEquals(List.of("1"), source.current().items().stream().map(BacklogItem::id).toList());
    source.synced();
    List<List<Problem>> rejected = new ArrayList<>();
    assertEquals(Optional.empty(), source.changed(rejected::add)); // before the interval: nothing runs

    clock.now = clock.now.plusSeconds(60);
    assertEquals(Optional.empty(), awaitRefresh(source, rejected)); // the same output: nothing to sync

    Files.writeString(output, "not json");
    clock.now = clock.now.plusSeconds(120);
    assertEquals(Optional.empty(), awaitRefresh(source, rejected));
    clock.now = clock.now.plusSeconds(120);
    assertEquals(Optional.empty(), awaitRefresh(source, rejected));
    assertEquals(1, rejected.size(), "the same failure is said once");
    assertTrue(rejected.get(0).get(0).message().startsWith("printed no JSON"), rejected.toString());

    Files.writeString(output, "[{\"number\": 1, \"title\": \"a\"}, {\"number\": 2, \"title\": \"b\"}]");
    clock.now = clock.now.plusSeconds(120);
    Optional<Backlog> changed = awaitRefresh(source, rejected);
    assertEquals(List.of("1", "2"), changed.orElseThrow().items().stream().map(BacklogItem::id).toList());
  }

  @Test
  void close_kills_a_refresh_under_way_with_its_process_tree() throws Exception {
    Path pids = dir.resolve("pids");
    Path output = dir.resolve("issues.json");
    Files.writeString(output, "[{\"number\": 1, \"title\": \"a\"}]");
    // The first run answers at once; a refresh starts a child that would sleep for a minute.
    String command = "if [ -f started ]; then sleep 60 & echo $! >> pids; echo $$ >> pids; wait; fi; "
        + "touch started; cat issues.json";
    MutableClock clock = new MutableClock();
    CommandBacklog source = new CommandBacklog(dir.resolve("backlog.yaml"), config(command, ""), System.getenv(),
        clock);
    clock.now = clock.now.plusSeconds(60);
    assertEquals(Optional.empty(), source.changed(p -> {}));
    for (int i = 0; i < 500 && (!Files.exists(pids) || Files.readAllLines(pids).size() < 2); i++) {
      Thread.sleep(10);
    }
    List<Long> started = Files.readAllLines(pids).stream().map(String::strip).map(Long::parseLong).toList();
    assertEquals(2, started.size(), "the refresh's shell and its sleep");
    assertTrue(source.refreshing());

    source.close();

    for (long pid : started) {
      ProcessHandle handle = ProcessHandle.of(pid).orElse(null);
      for (int i = 0; i < 500 && handle != null && handle.isAlive(); i++) {
        Thread.sleep(10);
      }
      assertFalse(handle != null && handle.isAlive(), "process " + pid + " outlived the run");
    }
  }

  /**
   * A review's finding: a child the command leaves in the background keeps its stdout open; it was
   * neither killed (re-parented out of the command's tree) nor waited out (the output read as
   * nothing after 5 s). It is killed with the command's session, and the output is read.
   */
  @Test
  void a_child_left_in_the_background_is_killed_and_the_output_read() throws Exception {
    Files.writeString(dir.resolve("issues.json"), "[{\"number\": 1, \"title\": \"a\"}]");
    long start = System.nanoTime();
    CommandBacklog source = new CommandBacklog(dir.resolve("backlog.yaml"),
        config("sleep 30 & echo $! > child; cat issues.json", ""), System.getenv(), new MutableClock());
    assertEquals(List.of("1"), source.current().items().stream().map(BacklogItem::id).toList());
    assertTrue(System.nanoTime() - start < java.util.concurrent.TimeUnit.SECONDS.toNanos(4),
        "read without waiting for the child");
    long child = Long.parseLong(Files.readString(dir.resolve("child")).strip());
    ProcessHandle handle = ProcessHandle.of(child).orElse(null);
    for (int i = 0; i < 300 && handle != null && handle.isAlive(); i++) {
      Thread.sleep(10);
    }
    assertFalse(handle != null && handle.isAlive(), "the background child outlived its command");
  }

  /** Starts a refresh (the interval has passed) and takes what it came to. */
  private static Optional<Backlog> awaitRefresh(CommandBacklog source, List<List<Problem>> rejected)
      throws InterruptedException {
    assertEquals(Optional.empty(), source.changed(rejected::add)); // starts it, never waits for it
    for (int i = 0; i < 500; i++) {
      Optional<Backlog> changed = source.changed(rejected::add);
      if (changed.isPresent() || !source.refreshing()) {
        return changed;
      }
      Thread.sleep(10);
    }
    throw new AssertionError("the refresh did not end");
  }

  @Test
  void a_transition_command_gets_its_values_as_arguments_or_as_variables_never_as_shell_text() {
    Map<String, String> values = Map.of("id", "GH-1", "source_id", "1", "title", "$(touch pwned)");
    assertEquals(List.of("gh", "issue", "close", "1", "--comment", "done: $(touch pwned)"),
        BacklogCommand.argv(new ProjectCommand("on_done", List.of("gh", "issue", "close", "{source_id}", "--comment",
            "done: {title}"), "gh", Duration.ofSeconds(1)), values));
    assertEquals(List.of("/bin/sh", "-c", "gh issue close \"${ORCHESTRATE_BACKLOG_SOURCE_ID}\" -c "
        + "\"${ORCHESTRATE_BACKLOG_TITLE}\""), BacklogCommand.argv(
            ProjectCommand.shell("on_done",
                "gh issue close {source_id} -c {title}", Duration.ofSeconds(1)),
            values));
    BacklogCommand.Result result = BacklogCommand.run(ProjectCommand.shell("on_done", "echo {title}",
        Duration.ofSeconds(10)), values, dir, System.getenv(), 1000);
    assertEquals("$(touch pwned)\n", result.stdoutText());
    assertFalse(Files.exists(dir.resolve("pwned")));
  }

  private static final class MutableClock extends Clock {
    Instant now = Instant.parse("2026-01-01T00:00:00Z");

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }
}
