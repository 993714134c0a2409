package dev.orchestrate.scheduler;

import static dev.orchestrate.testing.TestAgents.agent;
import static dev.orchestrate.testing.TestAgents.config;
import static dev.orchestrate.testing.TestAgents.script;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.backlog.WatchedBacklogFile;
import dev.orchestrate.config.Config;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.SyncResult;
import dev.orchestrate.jobs.AgentRunner;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.TestStores;
import dev.orchestrate.yaml.Problem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Edits to the backlog file during a run, made by real bash agents at a chosen phase. */
class BacklogReloadTest {
  private static final String RECORD = """
      echo "$ORCHESTRATE_ITEM_ID $ORCHESTRATE_PHASE $ORCHESTRATE_ATTEMPT" >> calls.txt
      """;

  @TempDir
  Path dir;

  private final List<List<Problem>> rejected = new ArrayList<>();
  private final List<SyncResult> reloaded = new ArrayList<>();

  private final RunListener listener = new RunListener() {
    @Override
    public void backlogRejected(List<Problem> problems) {
      rejected.add(problems);
    }

    @Override
    public void backlogReloaded(SyncResult changes) {
      reloaded.add(changes);
    }
  };

  private RunReport run(String backlog, String agentBody) throws Exception {
    Path file = Files.writeString(dir.resolve("backlog.yaml"), backlog);
    Config config = config(agent(script(dir, "agent.sh", RECORD + agentBody)), 0);
    try (StateStore store = TestStores.open(dir.resolve("state"))) {
      Scheduler scheduler = Scheduler.builder(store.items(), config, WatchedBacklogFile.load(file, config),
          dir.resolve("state/jobs"), new AgentRunner(Clock.systemUTC()), Clock.systemUTC()).listener(listener).build();
      return scheduler.run(100);
    }
  }

  private List<String> calls() throws Exception {
    return Files.readAllLines(dir.resolve("calls.txt"));
  }

  private ItemState stored(String id) {
    return StateRows.item(dir.resolve("state"), id);
  }

  /** {@code 1|done}: whether the item is in the backlog file, and its status. */
  private static String backlogAndStatus(ItemState item) {
    return (item.inBacklog() ? 1 : 0) + "|" + item.status().key();
  }

  private static final String A_AND_B = """
      items:
        - {id: A, title: a}
        - {id: B, title: b}
      """;

  private static String at(String item, String phase, String command) {
    return "if [ \"$ORCHESTRATE_ITEM_ID $ORCHESTRATE_PHASE\" = '" + item + " " + phase + "' ]; then " + command
        + "; fi\n";
  }

  @Test
  void an_item_appended_during_the_first_phase_runs_to_done_in_the_same_run() throws Exception {
    RunReport report = run(A_AND_B, at("A", "scope", "echo '  - {id: N, title: new}' >> backlog.yaml"));

    assertEquals(HaltReason.ALL_DONE, report.haltReason());
    assertEquals(3, report.doneThisRun());
    assertEquals(List.of("N scope 1", "N design 1", "N build 1", "N review 1"),
        calls().stream().filter(c -> c.startsWith("N ")).toList());
    assertEquals(List.of("A", "B", "N"), report.sync().added());
    assertEquals(1, reloaded.size());
    assertEquals(List.of("N"), reloaded.get(0).added());
    assertEquals(List.of(), rejected);
    assertEquals(List.of("done", "done", "done"),
        StateRows.items(dir.resolve("state")).stream().map(i -> i.status().key()).toList());
  }

  @Test
  void an_invalid_edit_is_reported_once_and_ignored_until_a_later_fix_is_picked_up() throws Exception {
    RunReport report = run(A_AND_B,
        at("A", "scope", "echo '  - {id: X, titel: typo}' >> backlog.yaml")
            + at("B", "scope", "sed -i 's/titel: typo/title: fixed at last/' backlog.yaml"));

    assertEquals(1, rejected.size(), "one warning for the bad edit, however many ticks pass before the fix");
    assertTrue(rejected.get(0).stream().anyMatch(p -> p.toString().contains("titel")), rejected.toString());
    assertTrue(rejected.get(0).get(0).line() > 0, "problems carry their line");
    assertEquals(HaltReason.ALL_DONE, report.haltReason());
    assertEquals(3, report.doneThisRun());
    List<String> calls = calls();
    assertEquals(List.of("A scope 1", "A design 1", "A build 1", "A review 1", "B scope 1"), calls.subList(0, 5),
        "the run went on with the last good backlog");
    assertTrue(calls.contains("X review 1"), calls.toString());
    assertEquals(List.of("A", "B", "X"), report.sync().added());
    assertEquals(List.of("fixed at last"), List.of(stored("X").definition().title()));
  }

  @Test
  void the_summary_of_an_item_removed_mid_phase_is_swept_from_the_map_though_the_item_never_finished()
      throws Exception {
    RunReport report = run(A_AND_B, at("A", "design", "printf 'items:\\n  - {id: B, title: b}\\n' > backlog.yaml"));

    assertEquals(List.of("A scope 1", "A design 1", "B scope 1"), calls().subList(0, 3), "A stops after its design");
    assertEquals(List.of("0|in_progress"), List.of(backlogAndStatus(stored("A"))),
        "A is neither done nor blocked: only the sweep can take its summary out of the map");
    assertEquals(0, report.figures().summaryMapFinal(), "swept at the tick after the reload");
    assertTrue(report.figures().summaryMapPeak() >= 1);
  }

  @Test
  void an_item_removed_mid_run_is_not_started_and_is_reported_as_no_longer_listed() throws Exception {
    String withoutC = "items:\\n  - {id: A, title: a}\\n  - {id: B, title: b}\\n";
    RunReport report = run("""
        items:
          - {id: A, title: a}
          - {id: B, title: b}
          - {id: C, title: c}
        """, at("A", "scope", "printf '" + withoutC + "' > backlog.yaml"));

    assertFalse(calls().stream().anyMatch(c -> c.startsWith("C ")), calls().toString());
    assertEquals(HaltReason.ALL_DONE, report.haltReason());
    assertEquals(2, report.done());
    assertEquals(List.of("C"), report.sync().vanished());
    assertEquals(List.of("A", "B"), report.sync().added(), "C is no longer listed, so it is not reported as added");
    assertEquals(List.of("C"), reloaded.get(0).vanished());
    assertEquals(List.of("0|new"), List.of(backlogAndStatus(stored("C"))));
  }

  @Test
  void an_item_removed_and_listed_again_comes_back_and_runs() throws Exception {
    String withoutC = "items:\\n  - {id: A, title: a}\\n  - {id: B, title: b}\\n";
    String withC = "items:\\n  - {id: A, title: a}\\n  - {id: B, title: b}\\n  - {id: C, title: c again}\\n";
    RunReport report = run("""
        items:
          - {id: A, title: a}
          - {id: B, title: b}
          - {id: C, title: c}
        """, at("A", "scope", "printf '" + withoutC + "' > backlog.yaml")
        + at("B", "scope", "printf '" + withC + "' > backlog.yaml"));

    assertEquals(3, report.doneThisRun());
    assertEquals(List.of(), report.sync().vanished());
    assertEquals(List.of("C"), report.sync().returned());
    assertEquals(List.of("C"), reloaded.get(1).returned());
    assertEquals(List.of("c again"), List.of(stored("C").definition().title()));
  }

  @Test
  void a_known_item_keeps_its_progress_but_takes_its_new_dependencies() throws Exception {
    // B, listed before C, is made to wait for C: C runs first from then on.
    String edited = "items:\\n  - {id: A, title: a}\\n  - {id: B, title: b, depends_on: [C]}\\n  - {id: C, title: c}\\n";
    run("""
        items:
          - {id: A, title: a}
          - {id: B, title: b}
          - {id: C, title: c}
        """, at("A", "build", "printf '" + edited + "' > backlog.yaml"));

    List<String> order = calls().stream().filter(c -> c.endsWith("scope 1")).toList();
    assertEquals(List.of("A scope 1", "C scope 1", "B scope 1"), order);
    assertEquals(1, calls().stream().filter(c -> c.startsWith("A scope")).count(), "A kept its progress");
  }

  @Test
  void deleting_the_file_is_one_warning_and_the_run_goes_on_with_every_item() throws Exception {
    RunReport report = run(A_AND_B, at("A", "scope", "rm backlog.yaml"));

    assertEquals(1, rejected.size());
    assertTrue(rejected.get(0).get(0).message().contains("deleted"), rejected.toString());
    assertEquals(HaltReason.ALL_DONE, report.haltReason());
    assertEquals(2, report.doneThisRun());
    assertEquals(List.of(), report.sync().vanished());
    assertEquals(List.of("1", "1"),
        StateRows.items(dir.resolve("state")).stream().map(i -> i.inBacklog() ? "1" : "0").toList());
  }
}
