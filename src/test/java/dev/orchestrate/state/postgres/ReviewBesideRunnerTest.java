package dev.orchestrate.state.postgres;

import static dev.orchestrate.testing.Fixtures.item;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.app.ReviewRefusedException;
import dev.orchestrate.app.Reviewing;
import dev.orchestrate.config.ConfigLoader;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.Progress;
import dev.orchestrate.item.Step;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.EmbeddedPostgresServer;
import dev.orchestrate.workspace.WorkspaceRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * approve and reject on a shared (PostgreSQL) state with no runner alive: no lease needed, the
 * write conditional on the items still awaiting review, and an approved item's integration left
 * pending for a run (so that only a run integrates, once). Beside a live runner they queue their
 * decisions instead: {@code dev.orchestrate.cli.ReviewBesideRunCliTest}.
 */
class ReviewBesideRunnerTest {
  private static final Instant T0 = Instant.parse("2026-11-26T10:00:00Z");

  @TempDir
  Path dir;

  @Test
  void approve_and_reject_write_at_once_with_no_runner_and_approval_leaves_integration_to_a_run() throws Exception {
    String schema = EmbeddedPostgresServer.freshSchema("review");
    PostgresBackend backend = TestBackend.on(schema, "host-a", dir);
    Path yaml = dir.resolve("orchestrate.yaml");
    Files.writeString(yaml, """
        execution: {workspace: worktree}
        pipelines:
          feature:
            review: required
            phases:
              - {name: build, instructions: Build it.}
              - {name: docs, instructions: Document it.}
        """);
    Reviewing.Project project = new Reviewing.Project(ConfigLoader.load(yaml), dir);
    try (StateStore runner = backend.open(StateStore.Mode.READ_WRITE)) {
      runner.items().sync(List.of(item("A"), item("B"), item("C")), T0);
      for (String id : List.of("A", "B", "C")) {
        ItemState item = runner.items().item(id).orElseThrow();
        runner.items().apply(new Step(item.with(new Progress(ItemStatus.AWAITING_REVIEW, "docs", 0, null, null, null,
            "documented", null)), List.of()), T0);
      }
      runner.workspaces().save(new WorkspaceRecord("A", dir.resolve("wt/A"), "orchestrate/A", "main",
          dir.resolve("repo/.git/worktrees/A"), "b0", "h1", null, null, null, null, 0, T0, null, null), T0);
      Reviewing reviewing = new Reviewing(backend, Clock.systemUTC());

      List<Reviewing.Approved> approved = reviewing.approve(List.of("A"), project);
      assertEquals(1, approved.size());
      assertEquals("pending", approved.get(0).integration());
      assertEquals(ItemStatus.LANDING, runner.items().item("A").orElseThrow().status(),
          "in the merge queue: a run lands it, and then it is done");
      WorkspaceRecord ws = runner.workspaces().workspace("A").orElseThrow();
      assertNotNull(ws.finishedAt(), "finished: a run's integration of pending items takes it");
      assertNull(ws.integration());
      assertEquals(List.of("B", "C"), List.copyOf(runner.items().reviewWaits().keySet()));

      List<Reviewing.Rejected> rejected = reviewing.reject(List.of("B"), "split the docs page", "build", project);
      ItemState b = runner.items().item("B").orElseThrow();
      assertEquals(new Reviewing.Rejected(b, "rejected"), rejected.get(0));
      assertEquals(ItemStatus.IN_PROGRESS, b.status());
      assertEquals("build", b.progress().phase());
      assertEquals("split the docs page", b.progress().unblockNotes());

      ReviewRefusedException refused = assertThrows(ReviewRefusedException.class,
          () -> reviewing.approve(List.of("C", "A", "X"), project));
      assertTrue(refused.getMessage().startsWith("unknown item 'X'; item A is landing, not awaiting_review"),
          refused.getMessage());
      assertEquals(ItemStatus.AWAITING_REVIEW, runner.items().item("C").orElseThrow().status(), "all or nothing");
      assertEquals(List.of(), runner.items().reviewDecisions(10), "nothing was queued: no runner was alive");
    }
  }

  /**
   * Beside a live runner the decisions are queued, not written: the items still await review; two
   * runners that both try to apply one decision apply it once (the delete is conditional), and the
   * item change and the delete are one transaction.
   */
  @Test
  void beside_a_live_runner_decisions_are_queued_and_applied_once() throws Exception {
    String schema = EmbeddedPostgresServer.freshSchema("review_queue");
    PostgresBackend backend = TestBackend.on(schema, "host-a", dir);
    Path yaml = dir.resolve("orchestrate.yaml");
    Files.writeString(yaml, """
        pipelines:
          feature:
            review: required
            phases:
              - {name: build, instructions: Build it.}
        """);
    Reviewing.Project project = new Reviewing.Project(ConfigLoader.load(yaml), dir);
    try (dev.orchestrate.state.RunLease lease = backend.acquireLease(T0, java.time.Duration.ofSeconds(30));
        StateStore one = backend.open(StateStore.Mode.READ_WRITE);
        StateStore two = backend.open(StateStore.Mode.READ_WRITE)) {
      one.items().sync(List.of(item("A"), item("B")), T0);
      for (String id : List.of("A", "B")) {
        ItemState item = one.items().item(id).orElseThrow();
        one.items().apply(new Step(item.with(new Progress(ItemStatus.AWAITING_REVIEW, "build", 0, null, null, null,
            "built", null)), List.of()), T0);
      }
      Reviewing reviewing = new Reviewing(backend, Clock.systemUTC(), java.time.Duration.ZERO);
      List<Reviewing.Approved> approved = reviewing.approve(List.of("A"), project);
      assertEquals("queued", approved.get(0).integration());
      assertEquals(ItemStatus.AWAITING_REVIEW, approved.get(0).item().status());
      List<Reviewing.Rejected> rejected = reviewing.reject(List.of("B"), "\u001b[2Jagain " + "x".repeat(20_000), null,
          project);
      assertEquals("queued", rejected.get(0).outcome());
      assertEquals(ItemStatus.AWAITING_REVIEW, one.items().item("B").orElseThrow().status(), "queued, not written");
      ReviewRefusedException refused = assertThrows(ReviewRefusedException.class,
          () -> reviewing.approve(List.of("A", "X"), project));
      assertTrue(refused.getMessage().startsWith("unknown item 'X'"), refused.getMessage());

      List<dev.orchestrate.item.ReviewDecision> queue = one.items().reviewDecisions(10);
      assertEquals(List.of("A", "B"), queue.stream().map(dev.orchestrate.item.ReviewDecision::itemId).toList(),
          "the refused command queued nothing");
      assertTrue(queue.get(0).approve());
      dev.orchestrate.item.ReviewDecision b = queue.get(1);
      assertEquals("build", b.phase());
      assertTrue(b.notes().length() <= dev.orchestrate.item.Transitions.UNBLOCK_NOTES_MAX_CHARS, "capped as unblock's");

      ItemState a = one.items().item("A").orElseThrow();
      Step approve = dev.orchestrate.item.Transitions.approve(a);
      assertTrue(one.items().applyDecision(queue.get(0).id(), approve, T0));
      assertFalse(two.items().applyDecision(queue.get(0).id(), approve, T0), "applied once");
      assertEquals(ItemStatus.DONE, two.items().item("A").orElseThrow().status());
      assertEquals(List.of("B"), two.items().reviewDecisions(10).stream()
          .map(dev.orchestrate.item.ReviewDecision::itemId).toList());
    }
  }
}
