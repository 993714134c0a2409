package dev.orchestrate.landing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.ChecksConfig;
import dev.orchestrate.config.ProjectCommand;
import dev.orchestrate.config.WorkspaceConfig;
import dev.orchestrate.item.ChecksReport;
import dev.orchestrate.item.IntegrationResult;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.ConfigWithers;
import dev.orchestrate.testing.TestStores;
import dev.orchestrate.testing.WorktreeSite;
import dev.orchestrate.workspace.ChecksRecord;
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
 * execution.checks with real git and a real script, on a clock the test moves: the wait starts at
 * the push, polls follow the interval, pending past the timeout blocks, red counts rounds up to the
 * last, and the report is the output's masked tail.
 */
class ChecksTest {
  private static final Instant T0 = Instant.parse("2026-11-01T00:00:00Z");

  @TempDir
  Path tmp;

  private GitRepo repo;
  private StateStore state;
  private WorkspaceStore store;
  private final PushTest.Moving clock = new PushTest.Moving(T0);

  @BeforeEach
  void setUp() {
    repo = GitRepo.init(tmp.resolve("project"));
    Path origin = tmp.resolve("origin.git");
    repo.addBareOrigin(origin);
    state = TestStores.open(repo.dir.resolve(".orchestrate"));
    store = state.workspaces();
  }

  @AfterEach
  void tearDown() {
    state.close();
  }

  /** A checks script that exits with the code in the file {@code code} after printing {@code out}'s text. */
  private WorktreeSite worktrees(int maxRounds) throws Exception {
    Path script = tmp.resolve("checks.sh");
    Files.writeString(script, """
        #!/bin/sh
        echo "$1 $2 $3" >> "%1$s/calls.txt"
        cat "%1$s/out" 2>/dev/null
        exit $(cat "%1$s/code")
        """.formatted(tmp));
    ChecksConfig checks = new ChecksConfig(new ProjectCommand("checks", List.of("sh", script.toString(), "{item}",
        "{branch}", "{pull_request}"), "checks", Duration.ofSeconds(30)), Duration.ofSeconds(60),
        Duration.ofMinutes(10), maxRounds, "build");
    WorkspaceConfig config = ConfigWithers
        .withMerge(ConfigWithers.withMode(WorkspaceConfig.defaults(), WorkspaceConfig.Mode.WORKTREE),
            WorkspaceConfig.Merge.PUSH)
        .withPush("origin", null).withChecks(checks);
    return WorktreeSite.open(repo.dir, config, store, clock);
  }

  private void pushed(WorktreeSite w, String id) {
    Path ws = w.prepare(id, repo.dir).workspace();
    GitRepo.write(ws, id + ".txt", id + " " + System.nanoTime() + "\n");
    w.commit(id, "build", 1, 1, "built " + id);
    w.committed(id);
    IntegrationResult result = w.integrate(id, "Item " + id);
    assertEquals("awaiting_checks", result.kind(), result.message());
  }

  private void answer(int code, String out) throws Exception {
    Files.writeString(tmp.resolve("code"), Integer.toString(code));
    Files.writeString(tmp.resolve("out"), out);
  }

  @Test
  void pending_polls_follow_the_interval_from_the_persisted_wait_and_green_ends_it() throws Exception {
    WorktreeSite w = worktrees(3);
    pushed(w, "A");
    assertEquals(new ChecksRecord(T0, T0, 0), store.checks("A"), "the wait starts at the push, its poll due");
    assertTrue(w.awaitingChecks());
    assertEquals(List.of("A"), w.checksDue());
    assertTrue(store.workspace("A").orElseThrow().onDisk(), "kept while it awaits: a red report works there");

    answer(ChecksConfig.PENDING, "running\n");
    assertEquals("pending", w.check("A").kind());
    assertEquals(T0.plusSeconds(60), store.checks("A").nextAt());
    clock.now = T0.plusSeconds(59);
    assertEquals(List.of(), w.checksDue(), "not before the interval");
    clock.now = T0.plusSeconds(60);
    assertEquals(List.of("A"), w.checksDue());
    assertEquals("A orchestrate/A \n", Files.readString(tmp.resolve("calls.txt")), "no pull request: empty");

    answer(0, "ok\n");
    ChecksReport green = w.check("A");
    assertEquals("green", green.kind());
    assertFalse(store.checks("A").waiting());
    assertFalse(store.workspace("A").orElseThrow().onDisk(), "green: removed, the branch stays");
    assertFalse(w.awaitingChecks());
    assertNull(w.check("A"), "no wait, no poll");
  }

  @Test
  void pending_past_the_timeout_blocks_the_item() throws Exception {
    WorktreeSite w = worktrees(3);
    pushed(w, "A");
    answer(ChecksConfig.PENDING, "");
    clock.now = T0.plus(Duration.ofMinutes(10));
    ChecksReport blocked = w.check("A");
    assertEquals("blocked", blocked.kind());
    assertTrue(blocked.message().startsWith("checks still pending after 10m"), blocked.message());
    assertFalse(store.checks("A").waiting());
    assertEquals(WorkspaceRecord.Integration.TIMED_OUT, store.workspace("A").orElseThrow().integration(),
        "unblock makes it done: the next run pushes it and waits again");
  }

  @Test
  void red_counts_rounds_and_the_last_round_blocks_with_the_masked_capped_report() throws Exception {
    WorktreeSite w = worktrees(2);
    pushed(w, "A");
    answer(1, "x".repeat(5000) + "\nFAILED test_login https://bot:s3cret@ci.example/run/1\n");
    ChecksReport red = w.check("A");
    assertEquals("red", red.kind());
    assertEquals(1, red.round());
    assertEquals("build", red.phase());
    assertTrue(red.message().contains("FAILED test_login"), red.message());
    assertFalse(red.message().contains("s3cret"), red.message());
    assertTrue(red.message().length() < ChecksWait.REPORT_MAX_CHARS + 100, "capped: " + red.message().length());
    assertEquals(new ChecksRecord(null, null, 1), store.checks("A"));

    // back to its phase, done again, pushed again: a new wait with the rounds kept
    pushed(w, "A");
    assertEquals(1, store.checks("A").rounds());
    ChecksReport last = w.check("A");
    assertEquals("blocked", last.kind());
    assertTrue(last.message().startsWith("checks red 2 times"), last.message());
    assertTrue(last.message().contains("FAILED test_login"), last.message());
  }
}
