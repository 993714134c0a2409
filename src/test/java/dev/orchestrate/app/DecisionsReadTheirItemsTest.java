package dev.orchestrate.app;

import static dev.orchestrate.testing.Fixtures.item;
import static dev.orchestrate.testing.Fixtures.reviewedProject;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.spy;
import static org.mockito.Mockito.verify;

import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.Progress;
import dev.orchestrate.item.StateRepository;
import dev.orchestrate.item.Step;
import dev.orchestrate.state.StateBackend;
import dev.orchestrate.state.StateStore;
import dev.orchestrate.testing.TestStores;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * approve, reject and unblock read the items they name and no other: their check before taking
 * the state's lease read every item of the state into a map to look up one or two (a state of a
 * million items read for one decision: seconds, and the whole backlog on the heap of a short
 * command). On a state of 5,000 items, no repository a decision opens is asked for all its items,
 * and the decisions and their refusals are what they were.
 */
class DecisionsReadTheirItemsTest {
  private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");
  private static final int ITEMS = 5_000;

  @TempDir
  Path dir;

  private StateBackend backend;
  private final List<StateRepository> opened = new ArrayList<>();
  private Reviewing.Project project;

  @BeforeEach
  void aLargeStateWithTwoItemsAwaitingReviewAndOneBlocked() throws Exception {
    project = reviewedProject(dir);
    StateBackend real = TestStores.backend(dir.resolve("state"));
    List<BacklogItem> backlog = new ArrayList<>();
    for (int i = 1; i <= ITEMS; i++) {
      backlog.add(item("I" + i));
    }
    try (StateStore store = real.open(StateStore.Mode.READ_WRITE)) {
      store.items().sync(backlog, T0);
      put(store, "I10", new Progress(ItemStatus.AWAITING_REVIEW, "docs", 0, null, null, null, "documented", null));
      put(store, "I20", new Progress(ItemStatus.AWAITING_REVIEW, "docs", 0, null, null, null, "documented", null));
      put(store, "I30", new Progress(ItemStatus.BLOCKED, "docs", 3, "stuck", ItemStatus.IN_PROGRESS, null, null, null));
    }
    // every store a command opens, and every repository it hands out, watched
    backend = spy(real);
    doAnswer(open -> {
      StateStore store = spy((StateStore) open.callRealMethod());
      doAnswer(items -> {
        StateRepository repository = spy((StateRepository) items.callRealMethod());
        opened.add(repository);
        return repository;
      }).when(store).items();
      return store;
    }).when(backend).open(any());
  }

  private static void put(StateStore store, String id, Progress progress) {
    ItemState item = store.items().item(id).orElseThrow();
    store.items().apply(new Step(item.with(progress), List.of()), T0);
  }

  private Reviewing reviewing() {
    return new Reviewing(backend, Clock.systemUTC(), Duration.ZERO);
  }

  @Test
  void approve_reject_and_unblock_read_only_the_items_they_name() {
    assertEquals(ItemStatus.DONE, reviewing().approve(List.of("I10"), project).get(0).item().status());
    Reviewing.Rejected rejected = reviewing().reject(List.of("I20"), "once more", "build", project).get(0);
    assertEquals(ItemStatus.IN_PROGRESS, rejected.item().status());
    assertEquals("build", rejected.item().progress().phase());
    ItemState unblocked = new Unblocking(backend, Clock.systemUTC()).unblock(List.of("I30"), "try again").get(0);
    assertEquals(ItemStatus.IN_PROGRESS, unblocked.status());
    assertEquals("try again", unblocked.progress().unblockNotes());

    assertEquals(true, opened.size() >= 6, "the commands opened stores: " + opened.size());
    for (StateRepository repository : opened) {
      verify(repository, never()).items();
    }
  }

  @Test
  void a_refusal_still_names_every_id_that_cannot_take_the_decision_and_reads_no_other_item() {
    ReviewRefusedException refused = assertThrows(ReviewRefusedException.class,
        () -> reviewing().approve(List.of("I10", "NOPE", "I11"), project));
    assertEquals("unknown item 'NOPE'; item I11 is new, not awaiting_review; only items awaiting review can be"
        + " approved (nothing was changed)", refused.getMessage());
    UnblockRefusedException notBlocked = assertThrows(UnblockRefusedException.class,
        () -> new Unblocking(backend, Clock.systemUTC()).unblock(List.of("I12"), null));
    assertEquals("item I12 is new, not blocked; only blocked items can be unblocked", notBlocked.getMessage());
    for (StateRepository repository : opened) {
      verify(repository, never()).items();
    }
    try (StateStore store = backend.open(StateStore.Mode.READ_ONLY)) {
      assertEquals(ItemStatus.AWAITING_REVIEW, store.items().item("I10").orElseThrow().status(), "nothing changed");
    }
  }
}
