package dev.orchestrate.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.backlog.InitialStatus;
import dev.orchestrate.backlog.Priority;
import dev.orchestrate.config.BacklogSourceConfig;
import dev.orchestrate.config.ProjectCommand;
import dev.orchestrate.item.BacklogHooks;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.Progress;
import dev.orchestrate.scheduler.ItemFilter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** backlog.source's transition commands: once per stay in a status, recorded, caught up at a run's start. */
class BacklogTransitionsTest {
  @TempDir
  Path dir;
  private final BacklogHooks store = BacklogHooks.inMemory();
  private final List<String> warnings = new ArrayList<>();

  private BacklogTransitions transitions(String onDone) {
    Duration timeout = Duration.ofSeconds(10);
    BacklogSourceConfig source = new BacklogSourceConfig(ProjectCommand.shell("backlog", "true", timeout),
        Duration.ofSeconds(60), "number", "GH-", ProjectCommand.shell("on_done", onDone, timeout),
        ProjectCommand.shell("on_blocked", "echo blocked {source_id} {reason} >> calls.log", timeout), null);
    return new BacklogTransitions(source, store, dir, System.getenv(), Clock.systemUTC(), false,
        id -> id.equals("GH-1") ? "https://forge/pr/7" : null, warnings::add, s -> s);
  }

  private BacklogTransitions transitions() {
    return transitions("echo done {id} {source_id} {title} {pull_request} >> calls.log");
  }

  private static ItemState item(String id, ItemStatus status, String origin) {
    Progress progress = status == ItemStatus.BLOCKED ? Progress.blocked(ItemStatus.IN_PROGRESS, "work", "needs a key")
        : status == ItemStatus.IN_PROGRESS ? Progress.of(ItemStatus.NEW).atPhase(status, "work")
            : Progress.of(status);
    return new ItemState(new BacklogItem(id, "Title of " + id, "feature", Priority.MEDIUM, List.of(), List.of(),
        "", InitialStatus.NEW), 1, true, progress, origin);
  }

  private static ItemState item(String id, ItemStatus status) {
    return item(id, status, null);
  }

  private List<String> calls() throws Exception {
    Path log = dir.resolve("calls.log");
    return Files.exists(log) ? Files.readAllLines(log) : List.of();
  }

  @Test
  void done_is_called_once_with_its_values_and_recorded() throws Exception {
    BacklogTransitions transitions = transitions();
    transitions.runStarted(List.of(item("GH-1", ItemStatus.IN_PROGRESS)), ItemFilter.ALL);
    transitions.statusChanged(item("GH-1", ItemStatus.IN_PROGRESS), item("GH-1", ItemStatus.DONE));
    transitions.statusChanged(item("GH-1", ItemStatus.AWAITING_REVIEW), item("GH-1", ItemStatus.DONE));
    transitions.finish(Duration.ofSeconds(10));
    assertEquals(List.of("done GH-1 1 Title of GH-1 https://forge/pr/7"), calls());
    assertEquals(Set.of("GH-1"), store.called("on_done"));
    assertEquals(List.of(), warnings);
  }

  @Test
  void each_stay_in_blocked_calls_it_once_and_leaving_clears_the_record() throws Exception {
    BacklogTransitions transitions = transitions();
    transitions.runStarted(List.of(), ItemFilter.ALL);
    transitions.statusChanged(item("GH-2", ItemStatus.IN_PROGRESS), item("GH-2", ItemStatus.BLOCKED));
    for (int i = 0; i < 1000 && store.called("on_blocked").isEmpty(); i++) {
      Thread.sleep(10); // the call runs on its own thread; its record is written at a flush
      transitions.flush();
    }
    assertEquals(Set.of("GH-2"), store.called("on_blocked"));
    transitions.statusChanged(item("GH-2", ItemStatus.BLOCKED), item("GH-2", ItemStatus.IN_PROGRESS));
    transitions.flush();
    assertEquals(Set.of(), store.called("on_blocked"));
    transitions.statusChanged(item("GH-2", ItemStatus.IN_PROGRESS), item("GH-2", ItemStatus.BLOCKED));
    transitions.finish(Duration.ofSeconds(10));
    assertEquals(List.of("blocked 2 needs a key", "blocked 2 needs a key"), calls());
  }

  @Test
  void a_run_start_calls_what_a_stopped_run_left_and_nothing_recorded_again() throws Exception {
    store.recordCalled("GH-1", "on_done", java.time.Instant.now());
    store.recordCalled("GH-3", "on_blocked", java.time.Instant.now());
    BacklogTransitions transitions = transitions();
    transitions.runStarted(List.of(item("GH-1", ItemStatus.DONE), item("GH-2", ItemStatus.DONE),
        item("GH-3", ItemStatus.IN_PROGRESS), item("WRK-4", ItemStatus.DONE),
        item("GH-5", ItemStatus.DONE, "GH-1/work")),
        ItemFilter.ALL);
    transitions.finish(Duration.ofSeconds(10));
    assertEquals(List.of("done GH-2 2 Title of GH-2"), calls().stream().map(String::strip).toList());
    assertEquals(Set.of("GH-1", "GH-2"), store.called("on_done"));
    assertEquals(Set.of(), store.called("on_blocked"), "GH-3 was unblocked between runs");
  }

  @Test
  void a_failing_command_is_a_warning_and_is_not_recorded() throws Exception {
    BacklogTransitions transitions = transitions("echo 'gh: HTTP 502' >&2; exit 1");
    transitions.runStarted(List.of(), ItemFilter.ALL);
    transitions.statusChanged(item("GH-1", ItemStatus.IN_PROGRESS), item("GH-1", ItemStatus.DONE));
    transitions.finish(Duration.ofSeconds(10));
    assertEquals(Set.of(), store.called("on_done"));
    assertEquals(List.of("warning: backlog.source.on_done for GH-1 failed: exit 1: gh: HTTP 502 (the next run calls "
        + "it again)"), warnings);
    assertTrue(calls().isEmpty());
  }

  /** A review's finding: a title the environment cannot hold was a task that died without a word. */
  @Test
  void a_value_the_environment_cannot_hold_is_a_warning_and_is_not_recorded() throws Exception {
    BacklogTransitions transitions = transitions();
    transitions.runStarted(List.of(), ItemFilter.ALL);
    ItemState nul = new ItemState(new BacklogItem("GH-2", "a\u0000b", "feature", Priority.MEDIUM, List.of(),
        List.of(), "", InitialStatus.NEW), 1, true,
        Progress.of(ItemStatus.NEW).atPhase(ItemStatus.IN_PROGRESS,
            "work"),
        null);
    transitions.statusChanged(nul, new ItemState(nul.definition(), 1, true, Progress.of(ItemStatus.DONE), null));
    transitions.finish(Duration.ofSeconds(10));
    assertEquals(Set.of(), store.called("on_done"));
    assertEquals(1, warnings.size(), warnings.toString());
    assertTrue(warnings.get(0).startsWith("warning: backlog.source.on_done for GH-2 could not run: "), warnings.get(0));
  }
}
