package dev.orchestrate.scheduler;

import static dev.orchestrate.testing.Fixtures.item;
import static dev.orchestrate.testing.Fixtures.phase;
import static dev.orchestrate.testing.TestAgents.agent;
import static dev.orchestrate.testing.TestAgents.config;
import static dev.orchestrate.testing.TestAgents.script;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.backlog.Backlog;
import dev.orchestrate.config.Config;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.jobs.AgentRunner;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.ConfigWithers;
import dev.orchestrate.testing.TestStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * review_timeout: the wait for a review starts when the item enters awaiting_review (persisted),
 * and a run whose clock is past it applies on_review_timeout; before that, the item waits.
 */
class ReviewTimeoutTest {
  private static final Instant T0 = Instant.parse("2026-11-26T10:00:00Z");
  private static final String RECORD = """
      echo "$ORCHESTRATE_ITEM_ID $ORCHESTRATE_PHASE $ORCHESTRATE_ATTEMPT" >> calls.txt
      cat > "prompt-$ORCHESTRATE_ITEM_ID-$(wc -l < calls.txt | tr -d ' ').md"
      """;

  @TempDir
  Path dir;

  private Config gated(Pipeline.TimeoutAction action) {
    Pipeline p = ConfigWithers.withReviewTimeout(
        new Pipeline("feature", List.of(), List.of(phase("build"))).withReview(Pipeline.Review.REQUIRED),
        new Pipeline.ReviewTimeout(Duration.ofHours(1), action));
    return config(agent(script(dir, "agent.sh", RECORD)), 0, p);
  }

  private RunReport run(Config config, Instant at) {
    Clock clock = Clock.fixed(at, ZoneOffset.UTC);
    try (StateStore store = TestStores.open(dir.resolve("state"))) {
      return Scheduler.builder(store.items(), config, new Backlog(dir.resolve("backlog.yaml"), List.of(item("A"))),
          dir.resolve("state/jobs"), new AgentRunner(clock), clock).build().run(10);
    }
  }

  private ItemState stored() {
    return StateRows.item(dir.resolve("state"), "A");
  }

  private Map<String, Instant> waits() {
    return TestStores.read(dir.resolve("state"), store -> store.items().reviewWaits());
  }

  @Test
  void the_wait_is_persisted_and_kept_and_reject_after_the_timeout_sends_the_item_back_with_a_note() throws Exception {
    Config config = gated(Pipeline.TimeoutAction.REJECT);
    RunReport first = run(config, T0);
    assertEquals(List.of("A"), first.awaitingReview());
    assertEquals(0, first.remaining());
    assertEquals(HaltReason.ALL_DONE, first.haltReason(), "a run does not wait for a human");
    assertEquals(Map.of("A", T0), waits());

    RunReport early = run(config, T0.plus(Duration.ofMinutes(59)));
    assertEquals(0, early.phasesRun());
    assertEquals(ItemStatus.AWAITING_REVIEW, stored().status());
    assertEquals(Map.of("A", T0), waits(), "a later run keeps when the wait began");

    RunReport late = run(config, T0.plus(Duration.ofMinutes(61)));
    assertEquals(1, late.phasesRun(), "rejected back to its last phase, and run again");
    assertEquals(List.of("A build 1", "A build 1"), Files.readAllLines(dir.resolve("calls.txt")));
    assertTrue(Files.readString(dir.resolve("prompt-A-2.md")).contains("Nobody reviewed this item's work in time"));
    assertEquals(ItemStatus.AWAITING_REVIEW, stored().status(), "then it awaits review again");
    assertEquals(Map.of("A", T0.plus(Duration.ofMinutes(61))), waits(), "with a new wait");
  }

  @Test
  void approve_after_the_timeout_makes_the_item_done() {
    Config config = gated(Pipeline.TimeoutAction.APPROVE);
    run(config, T0);
    RunReport late = run(config, T0.plus(Duration.ofHours(2)));
    assertEquals(ItemStatus.DONE, stored().status());
    assertEquals(1, late.doneThisRun());
    assertEquals(Map.of(), waits());
  }

  @Test
  void block_after_the_timeout_blocks_the_item_and_unblock_returns_it_to_await_review() {
    Config config = gated(Pipeline.TimeoutAction.BLOCK);
    run(config, T0);
    run(config, T0.plus(Duration.ofHours(2)));
    ItemState blocked = stored();
    assertEquals(ItemStatus.BLOCKED, blocked.status());
    assertEquals(ItemStatus.AWAITING_REVIEW, blocked.progress().blockedFrom());
    assertTrue(blocked.progress().blockedReason().startsWith(
        "it awaited review longer than review_timeout 1h (on_review_timeout: block)"),
        blocked.progress().blockedReason());
  }
}
