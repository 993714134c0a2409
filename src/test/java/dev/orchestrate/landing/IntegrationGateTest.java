package dev.orchestrate.landing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.ProjectCommand;
import dev.orchestrate.config.WorkspaceConfig;
import dev.orchestrate.item.IntegrationResult;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.ConfigWithers;
import dev.orchestrate.testing.TestStores;
import dev.orchestrate.testing.WorktreeSite;
import dev.orchestrate.workspace.GitRepo;
import dev.orchestrate.workspace.WorkspaceRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The integration gates with real git and real gate processes: what lands on the base branch has
 * passed them as it lands, the item's work on top of the base's tip (docs/verification.md, "What
 * lands").
 *
 * <p>The project: {@code base.txt} holds a number (1 on main). The gate is red when the number is 5
 * or more and {@code double.txt} exists, as a test of {@code double() == 2} would be once
 * {@code base()} returns 10: two items each green alone, red together, with no textual conflict.
 */
class IntegrationGateTest {
  @TempDir
  Path tmp;

  private GitRepo repo;
  private StateStore state;
  private WorktreeSite site;

  /** Red when base.txt is 5 or more and double.txt exists; counts its runs in gate-runs.txt. */
  private ProjectCommand semantic() {
    return ProjectCommand.shell("tests", "echo run >> " + tmp.resolve("gate-runs.txt") + "; "
        + "if [ \"$(cat base.txt)\" -ge 5 ] && [ -f double.txt ]; then "
        + "echo 'AssertionError: 20 != 2'; exit 1; fi; echo ok", Duration.ofSeconds(30));
  }

  @BeforeEach
  void setUp() {
    repo = GitRepo.init(tmp.resolve("project"));
    repo.write("base.txt", "1\n");
    repo.commitAll("base() returns 1");
    state = TestStores.open(repo.dir.resolve(".orchestrate"));
    site = WorktreeSite.open(repo.dir,
        ConfigWithers.withMode(WorkspaceConfig.defaults(), WorkspaceConfig.Mode.WORKTREE),
        state.workspaces(), Clock.systemUTC());
  }

  @AfterEach
  void tearDown() {
    state.close();
  }

  private void work(String id, String file, String text) {
    Path ws = site.prepare(id, repo.dir).workspace();
    GitRepo.write(ws, file, text);
    site.succeed(id, "build", 1, "changed " + file);
  }

  private int gateRuns() throws Exception {
    Path runs = tmp.resolve("gate-runs.txt");
    return Files.exists(runs) ? Files.readAllLines(runs).size() : 0;
  }

  @Test
  void two_items_green_alone_and_red_together_land_only_the_first_and_the_base_stays_green() throws Exception {
    work("A", "base.txt", "10\n");
    work("B", "double.txt", "base() * 2\n");

    IntegrationResult first = site.integrate("A", "base() returns 10", List.of(semantic()));
    assertEquals("integrated", first.kind(), first.message());
    assertTrue(first.message().contains("after its gates passed there (tests "), first.message());
    String landed = repo.head("main");

    IntegrationResult second = site.integrate("B", "add double()", List.of(semantic()));
    assertEquals("integration_failed", second.kind(), second.message());
    assertTrue(second.blocks());
    assertTrue(second.message().contains("integration gate tests failed on orchestrate/B rebased onto main"),
        second.message());
    assertTrue(second.message().contains("AssertionError: 20 != 2"), "the gate's output: " + second.message());
    assertEquals(landed, repo.head("main"), "nothing that failed its gate lands");
    assertFalse(Files.exists(repo.dir.resolve("double.txt")), "the user's checkout has only what landed");
    assertEquals(WorkspaceRecord.Integration.CONFLICT, state.workspaces().workspace("B").orElseThrow().integration());
    assertEquals(List.of("B"), site.integrationPending(), "unblocked and done again, it is integrated again");
    assertEquals(2, gateRuns());
    assertFalse(Files.exists(repo.dir.resolve(".orchestrate/worktrees/+land-B")), "the landing tree is removed");
    assertFalse(repo.git("worktree", "list").contains("+land-"), "and git forgets it");
  }

  @Test
  void the_gate_runs_on_the_tree_that_lands_not_on_the_agents_worktree() throws Exception {
    repo.write(".gitignore", "proof.txt\n");
    repo.commitAll("ignore proof.txt");
    work("A", "double.txt", "base() * 2\n");
    // left in the worktree and ignored by git, so never committed: a gate that trusted the
    // agent's worktree would pass on it
    GitRepo.write(state.workspaces().workspace("A").orElseThrow().path(), "proof.txt", "trust me\n");
    ProjectCommand gate = ProjectCommand.shell("proof", "test -f proof.txt", Duration.ofSeconds(30));
    IntegrationResult result = site.integrate("A", "add double()", List.of(gate));
    assertEquals("integration_failed", result.kind(), result.message());
    assertTrue(result.message().contains("exited with 1"), result.message());
  }

  @Test
  void a_base_that_moved_while_the_gates_ran_is_gated_again_before_anything_lands() throws Exception {
    work("A", "a.txt", "a\n");
    Path once = tmp.resolve("moved-once");
    // the first run of the gate: a person commits on main meanwhile
    ProjectCommand gate = ProjectCommand.shell("tests", "echo run >> " + tmp.resolve("gate-runs.txt") + "; "
        + "if [ ! -f " + once + " ]; then touch " + once + "; "
        + "git -C " + repo.dir + " -c user.name=u -c user.email=u@x commit -q --allow-empty -m meanwhile; fi",
        Duration.ofSeconds(30));
    IntegrationResult result = site.integrate("A", "a", List.of(gate));
    assertEquals("integrated", result.kind(), result.message());
    assertEquals(2, gateRuns(), "gated again on the new tip");
    assertEquals("meanwhile", repo.git("log", "-1", "--format=%s", "main~1"));
    assertEquals("a\n", GitRepo.read(repo.dir.resolve("a.txt")));
  }

  @Test
  void with_gates_an_item_of_several_phase_commits_lands_as_the_one_commit_they_ran_on() throws Exception {
    Path ws = site.prepare("A", repo.dir).workspace();
    GitRepo.write(ws, "design.md", "the design\n");
    site.worktrees.commit("A", "design", 1, 11, "designed");
    site.worktrees.committed("A");
    GitRepo.write(ws, "double.txt", "base() * 2\n");
    site.worktrees.commit("A", "build", 1, 12, "built");
    site.worktrees.committed("A");
    String start = repo.head("main");

    IntegrationResult result = site.integrate("A", "add double()", List.of(semantic()));

    assertEquals("integrated", result.kind(), result.message());
    assertEquals(List.of(repo.head("main")), repo.git("rev-list", start + "..main").lines().toList(),
        "one commit landed: no phase commit reached main that the gate did not run on");
    String message = repo.git("log", "-1", "--format=%B", "main");
    assertTrue(message.startsWith("A: add double()"), message);
    assertTrue(message.contains("- A design: designed") && message.contains("- A build: built"), message);
    assertEquals("11,12", repo.git("log", "-1", "--format=%(trailers:key=Orchestrate-Job,valueonly,separator=%x2C)",
        "main").strip(), "each job's trailer is in the commit that landed, where jobs and status ID find it");
  }

  @Test
  void no_gates_integrate_as_before() throws Exception {
    work("A", "base.txt", "10\n");
    work("B", "double.txt", "x\n");
    assertEquals("integrated", site.integrate("A", "a").kind());
    assertEquals("integrated", site.integrate("B", "b").kind());
    assertEquals(0, gateRuns());
  }
}
