package dev.orchestrate.landing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.ChecksConfig;
import dev.orchestrate.config.ProjectCommand;
import dev.orchestrate.config.ReviewFeedbackConfig;
import dev.orchestrate.config.WorkspaceConfig;
import dev.orchestrate.item.ChecksReport;
import dev.orchestrate.item.IntegrationResult;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.ConfigWithers;
import dev.orchestrate.testing.TestStores;
import dev.orchestrate.testing.WorktreeSite;
import dev.orchestrate.workspace.GitRepo;
import dev.orchestrate.workspace.WorkspaceRecord;
import dev.orchestrate.workspace.WorkspaceStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * land: auto with real git and real scripts, on a clock the test moves: land_command runs only
 * after a poll that said green and approved, its failures are bounded, and a pull request the forge
 * says is merged is done without it.
 */
class LandTest {
  private static final Instant T0 = Instant.parse("2026-11-01T00:00:00Z");
  private static final String APPROVED = "{\"state\": \"OPEN\", \"reviewDecision\": \"APPROVED\"}";

  @TempDir
  Path tmp;

  private GitRepo repo;
  private StateStore state;
  private WorkspaceStore store;
  private final PushTest.Moving clock = new PushTest.Moving(T0);
  private WorktreeSite site;

  @BeforeEach
  void setUp() throws Exception {
    repo = GitRepo.init(tmp.resolve("project"));
    repo.addBareOrigin(tmp.resolve("origin.git"));
    state = TestStores.open(repo.dir.resolve(".orchestrate"));
    store = state.workspaces();
    Path checks = Files.writeString(tmp.resolve("checks.sh"), "#!/bin/sh\nexit $(cat \"%s/checks\")\n"
        .formatted(tmp));
    Path view = Files.writeString(tmp.resolve("view.sh"), "#!/bin/sh\ncat \"%s/review.json\"\n".formatted(tmp));
    Path land = Files.writeString(tmp.resolve("land.sh"), """
        #!/bin/sh
        echo "$1" >> "%1$s/lands.txt"
        echo "merge refused: base branch policy"
        exit $(cat "%1$s/land")
        """.formatted(tmp));
    Duration poll = Duration.ofSeconds(30);
    ReviewFeedbackConfig feedback = new ReviewFeedbackConfig(new ProjectCommand("review_feedback",
        List.of("sh", view.toString()), "view", poll), 3, null, Duration.ofHours(1),
        new ProjectCommand("land_command", List.of("sh", land.toString(), "{item}"), "land", poll));
    ChecksConfig config = new ChecksConfig(new ProjectCommand("checks", List.of("sh", checks.toString()), "checks",
        poll), Duration.ofSeconds(60), Duration.ofMinutes(10), 3, null).withFeedback(feedback);
    site = WorktreeSite.open(repo.dir, ConfigWithers
        .withMerge(ConfigWithers.withMode(WorkspaceConfig.defaults(), WorkspaceConfig.Mode.WORKTREE),
            WorkspaceConfig.Merge.PUSH)
        .withPush("origin", null).withChecks(config), store, clock);
    Path ws = site.prepare("A", repo.dir).workspace();
    GitRepo.write(ws, "A.txt", "A\n");
    site.commit("A", "build", 1, 1, "built A");
    site.committed("A");
    IntegrationResult pushed = site.integrate("A", "Item A");
    assertEquals("awaiting_checks", pushed.kind(), pushed.message());
  }

  @AfterEach
  void tearDown() {
    state.close();
  }

  private void answer(int checks, String review, int land) throws Exception {
    Files.writeString(tmp.resolve("checks"), Integer.toString(checks));
    Files.writeString(tmp.resolve("review.json"), review);
    Files.writeString(tmp.resolve("land"), Integer.toString(land));
  }

  private int lands() throws Exception {
    Path file = tmp.resolve("lands.txt");
    return Files.exists(file) ? Files.readAllLines(file).size() : 0;
  }

  @Test
  void land_command_runs_only_after_green_and_approved_and_its_third_failure_blocks() throws Exception {
    answer(ChecksConfig.PENDING, APPROVED, 1);
    assertEquals("pending", site.check("A").kind());
    answer(0, "{\"state\": \"OPEN\", \"reviewDecision\": \"REVIEW_REQUIRED\"}", 1);
    ChecksReport unapproved = site.check("A");
    assertEquals("pending", unapproved.kind());
    assertTrue(unapproved.message().contains("awaiting approval"), unapproved.message());
    answer(1, APPROVED, 0);
    assertEquals("red", site.check("A").kind());
    assertEquals(0, lands(), "never merged pending, unapproved or red");
    assertEquals(WorkspaceRecord.Integration.CHECKS_RED, store.workspace("A").orElseThrow().integration());

    IntegrationResult again = site.integrate("A", "Item A"); // fixed, pushed again
    assertEquals("awaiting_checks", again.kind(), again.message());
    answer(0, APPROVED, 1);
    for (int failure = 1; failure < ReviewFeedbackConfig.LAND_MAX_FAILURES; failure++) {
      ChecksReport failed = site.check("A");
      assertEquals("pending", failed.kind(), failed.message());
      assertTrue(failed.message().contains("merge refused: base branch policy"), failed.message());
      assertEquals(failure, lands());
      assertEquals(failure, store.review("A").landFailures());
    }
    ChecksReport blocked = site.check("A");
    assertEquals("blocked", blocked.kind());
    assertTrue(blocked.message().contains("failed 3 times in a row"), blocked.message());
    assertEquals(WorkspaceRecord.Integration.LAND_FAILED, store.workspace("A").orElseThrow().integration());
    assertFalse(store.checks("A").waiting());
  }

  @Test
  void an_approved_green_pull_request_is_merged_once_and_one_merged_on_the_forge_needs_no_command()
      throws Exception {
    answer(0, APPROVED, 0);
    ChecksReport merged = site.check("A");
    assertEquals("merged", merged.kind(), merged.message());
    assertEquals(1, lands());
    assertEquals(WorkspaceRecord.Integration.MERGED, store.workspace("A").orElseThrow().integration());
    assertFalse(store.checks("A").waiting());
    assertFalse(store.workspace("A").orElseThrow().onDisk(), "done: its worktree removed, the branch stays");
    assertEquals(null, site.check("A"), "no wait, no poll, no second merge");
    assertEquals(1, lands());

    site.integrate("A", "Item A");
    answer(ChecksConfig.PENDING, "{\"state\": \"MERGED\"}", 0);
    assertEquals("merged", site.check("A").kind());
    assertEquals(1, lands(), "merged by someone (or a run cut short): not merged again");
  }

  @Test
  void reviews_past_the_output_bound_are_no_verdict_and_nothing_is_merged() throws Exception {
    String huge = "{\"state\": \"OPEN\", \"reviewDecision\": \"APPROVED\", \"comments\": [{\"body\": \""
        + "x".repeat(PullRequestCommand.OUTPUT_MAX_BYTES * 2) + "\"}]}";
    answer(0, huge, 0);
    ChecksReport pending = site.check("A");
    assertEquals("pending", pending.kind());
    assertTrue(pending.message().contains("printed more than 64 KiB"), pending.message());
    assertEquals(0, lands());
  }
}
