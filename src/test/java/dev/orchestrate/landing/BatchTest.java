package dev.orchestrate.landing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.ProjectCommand;
import dev.orchestrate.config.WorkspaceConfig;
import dev.orchestrate.item.IntegrationResult;
import dev.orchestrate.item.LandingItem;
import dev.orchestrate.item.SlowWork;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.ConfigWithers;
import dev.orchestrate.testing.TestStores;
import dev.orchestrate.testing.WorktreeSite;
import dev.orchestrate.workspace.GitRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * execution.integration_batch with real git and a real gate: a batch lands after one gate run on
 * its combined tree; on red it is bisected, the innocent items before the culprit land, the culprit
 * is red, the items after it go back to the queue with their branches as they were.
 */
class BatchTest {
  @TempDir
  Path tmp;

  private GitRepo repo;
  private StateStore state;
  private WorktreeSite site;

  /** Red when bad.txt exists; counts its runs. */
  private ProjectCommand gate() {
    return ProjectCommand.shell("tests", "echo run >> " + tmp.resolve("gate-runs.txt") + "; "
        + "if [ -f bad.txt ]; then echo 'bad.txt breaks the build'; exit 1; fi", Duration.ofSeconds(30));
  }

  @BeforeEach
  void setUp() {
    repo = GitRepo.init(tmp.resolve("project"));
    state = TestStores.open(repo.dir.resolve(".orchestrate"));
    site = WorktreeSite.open(repo.dir, ConfigWithers.withMode(WorkspaceConfig.defaults(), WorkspaceConfig.Mode.WORKTREE)
        .withIntegrationBatch(4), state.workspaces(), Clock.systemUTC());
  }

  @AfterEach
  void tearDown() {
    state.close();
  }

  private void work(String id, String file) {
    Path ws = site.prepare(id, repo.dir).workspace();
    GitRepo.write(ws, file, id + "\n");
    site.succeed(id, "build", 1, "wrote " + file);
  }

  private Map<String, IntegrationResult> land(String... ids) {
    List<LandingItem> items = java.util.Arrays.stream(ids).map(id -> new LandingItem(id, "Item " + id,
        List.of(gate()))).toList();
    return SlowWork.inline(site.landing.integrateBatch(items));
  }

  private int gateRuns() throws Exception {
    Path runs = tmp.resolve("gate-runs.txt");
    return Files.exists(runs) ? Files.readAllLines(runs).size() : 0;
  }

  @Test
  void a_green_batch_lands_every_item_after_one_gate_run_each_commit_on_top_of_the_one_before() throws Exception {
    for (String id : List.of("A", "B", "C", "D")) {
      work(id, id.toLowerCase() + ".txt");
    }
    Map<String, IntegrationResult> results = land("A", "B", "C", "D");
    assertEquals(List.of("A", "B", "C", "D"), List.copyOf(results.keySet()));
    results.values().forEach(r -> assertEquals("integrated", r.kind(), r.message()));
    assertEquals(1, gateRuns(), "one gate run for the batch");
    for (String id : List.of("a", "b", "c", "d")) {
      assertTrue(Files.exists(repo.dir.resolve(id + ".txt")), id);
    }
    assertEquals(List.of("D build: wrote d.txt", "C build: wrote c.txt", "B build: wrote b.txt",
        "A build: wrote a.txt", "init"), repo.subjects("main"), "a linear history, one phase commit each");
  }

  @Test
  void a_red_batch_is_bisected_the_items_before_the_culprit_land_and_the_ones_after_are_requeued_unchanged()
      throws Exception {
    work("A", "a.txt");
    work("B", "b.txt");
    work("C", "bad.txt");
    work("D", "d.txt");
    String dBefore = repo.head("orchestrate/D");

    Map<String, IntegrationResult> results = land("A", "B", "C", "D");

    assertEquals("integrated", results.get("A").kind(), results.get("A").message());
    assertEquals("integrated", results.get("B").kind(), results.get("B").message());
    assertEquals("integration_failed", results.get("C").kind());
    assertTrue(results.get("C").message().contains("bad.txt breaks the build"), results.get("C").message());
    assertEquals("queued", results.get("D").kind());
    assertEquals(3, gateRuns(), "the whole batch, then A+B (green), then A+B+C (red): the culprit is C");
    assertTrue(Files.exists(repo.dir.resolve("b.txt")));
    assertFalse(Files.exists(repo.dir.resolve("bad.txt")), "the culprit did not land");
    assertFalse(Files.exists(repo.dir.resolve("d.txt")), "nor what came after it");
    assertEquals(dBefore, repo.head("orchestrate/D"), "D's branch is as it was, without C's work under it");
    assertEquals(repo.head("main"), repo.git("merge-base", "main", "orchestrate/C").strip(),
        "C's branch is its work on top of what landed, for its agent to fix there");
  }

  @Test
  void a_culprit_first_in_the_batch_lands_nothing_and_requeues_the_rest() throws Exception {
    work("A", "bad.txt");
    work("B", "b.txt");
    String start = repo.head("main");
    Map<String, IntegrationResult> results = land("A", "B");
    assertEquals("integration_failed", results.get("A").kind());
    assertEquals("queued", results.get("B").kind());
    assertEquals(start, repo.head("main"));
    assertEquals(2, gateRuns(), "both, then A alone");
  }
}
