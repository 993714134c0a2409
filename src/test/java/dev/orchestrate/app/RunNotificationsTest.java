package dev.orchestrate.app;

import static dev.orchestrate.testing.Fixtures.item;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.orchestrate.item.AgentPauses;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.Progress;
import dev.orchestrate.notify.EventKind;
import dev.orchestrate.notify.NotificationEvent;
import dev.orchestrate.notify.Notifier;
import dev.orchestrate.notify.NotifySink;
import dev.orchestrate.notify.Sink;
import dev.orchestrate.outcome.OutcomeClass;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The scheduler's callbacks as notification events: which transitions are news, and what repeats
 * are (one block per block, one usage-limit pause per pause, each budget threshold once).
 */
class RunNotificationsTest {
  private static final Instant NOW = Instant.parse("2026-11-26T12:00:00Z");
  private final List<NotificationEvent> sent = new CopyOnWriteArrayList<>();

  private Notifier notifier() {
    Sink capture = new Sink() {
      @Override
      public NotifySink config() {
        return new NotifySink.Command("capture", List.of("true"), EnumSet.allOf(EventKind.class),
            Duration.ofSeconds(1));
      }

      @Override
      public void deliver(NotificationEvent event, String deliveryId, String json) {
        sent.add(event);
      }
    };
    return new Notifier(List.of(capture), s -> s.replace("hunter2", "***"), Clock.fixed(NOW, ZoneOffset.UTC), 100);
  }

  private static ItemState at(ItemStatus status) {
    Progress progress = status == ItemStatus.BLOCKED ? Progress.blocked(ItemStatus.IN_PROGRESS, "build",
        "retries exhausted: the password hunter2 was refused")
        : status == ItemStatus.IN_PROGRESS ? Progress.of(ItemStatus.NEW).atPhase(status, "build") : Progress.of(status);
    return new ItemState(item("A"), 1, true, progress);
  }

  private List<String> kinds() {
    List<String> out = new ArrayList<>();
    sent.forEach(e -> out.add(e.kind().wireName() + (e.itemId() == null ? "" : ":" + e.itemId())));
    return out;
  }

  @Test
  void a_block_is_news_once_per_block_and_again_after_the_item_left_it() {
    Notifier notifier = notifier();
    RunNotifications n = new RunNotifications(notifier, Clock.fixed(NOW, ZoneOffset.UTC));
    n.runRecorded(7);

    n.jobFinished(at(ItemStatus.IN_PROGRESS), at(ItemStatus.BLOCKED), null);
    n.statusChanged(at(ItemStatus.IN_PROGRESS), at(ItemStatus.BLOCKED)); // the same block, seen again
    n.statusChanged(at(ItemStatus.BLOCKED), at(ItemStatus.READY)); // unblocked beside the run
    n.jobFinished(at(ItemStatus.IN_PROGRESS), at(ItemStatus.BLOCKED), null); // blocked again
    n.jobFinished(at(ItemStatus.IN_PROGRESS), at(ItemStatus.IN_PROGRESS), null); // a retry: no news
    n.jobFinished(at(ItemStatus.IN_PROGRESS), at(ItemStatus.DONE), null);
    notifier.close(Duration.ofSeconds(5));

    assertEquals(List.of("item_blocked:A", "item_blocked:A", "item_done:A"), kinds());
    NotificationEvent first = sent.get(0);
    assertEquals("7", first.runId());
    assertEquals("build", first.details().get("phase"));
    assertEquals("retries exhausted: the password *** was refused", first.details().get("reason"));
  }

  @Test
  void each_red_check_is_news_with_its_report() {
    Notifier notifier = notifier();
    RunNotifications n = new RunNotifications(notifier, Clock.fixed(NOW, ZoneOffset.UTC));
    ItemState red = new ItemState(item("A"), 1, true, new Progress(ItemStatus.IN_PROGRESS, "build", 0, null, null,
        "FAILED test_login", null, null));

    n.statusChanged(at(ItemStatus.DONE), at(ItemStatus.AWAITING_CHECKS)); // pushed: no news of its own
    n.statusChanged(at(ItemStatus.AWAITING_CHECKS), red);
    n.statusChanged(at(ItemStatus.DONE), at(ItemStatus.AWAITING_CHECKS)); // pushed again
    n.statusChanged(at(ItemStatus.AWAITING_CHECKS), red); // red again: news again
    n.statusChanged(at(ItemStatus.AWAITING_CHECKS), at(ItemStatus.DONE));
    notifier.close(Duration.ofSeconds(5));

    assertEquals(List.of("checks_red:A", "checks_red:A", "item_done:A"), kinds());
    assertEquals("FAILED test_login", sent.get(0).details().get("report"));
    assertEquals("build", sent.get(0).details().get("phase"));
  }

  @Test
  void each_round_of_changes_requested_is_news_of_its_own_with_the_reviews() {
    Notifier notifier = notifier();
    RunNotifications n = new RunNotifications(notifier, Clock.fixed(NOW, ZoneOffset.UTC));
    String reviews = dev.orchestrate.item.Transitions.CHANGES_REQUESTED_INTRO + " (round 1). ...\n- alice "
        + "(changes requested):\n  Rename it.";
    ItemState back = new ItemState(item("A"), 1, true, new Progress(ItemStatus.IN_PROGRESS, "build", 0, null, null,
        reviews, null, null));

    n.statusChanged(at(ItemStatus.AWAITING_CHECKS), back);
    n.statusChanged(at(ItemStatus.DONE), at(ItemStatus.AWAITING_CHECKS));
    n.statusChanged(at(ItemStatus.AWAITING_CHECKS), back);
    notifier.close(Duration.ofSeconds(5));

    assertEquals(List.of("changes_requested:A", "changes_requested:A"), kinds());
    assertEquals(reviews, sent.get(0).details().get("reviews"));
    assertEquals(null, sent.get(0).details().get("report"));
  }

  @Test
  void an_item_awaiting_review_is_news_once_per_wait() {
    Notifier notifier = notifier();
    RunNotifications n = new RunNotifications(notifier, Clock.fixed(NOW, ZoneOffset.UTC));

    n.jobFinished(at(ItemStatus.IN_PROGRESS), at(ItemStatus.AWAITING_REVIEW), null);
    n.statusChanged(at(ItemStatus.IN_PROGRESS), at(ItemStatus.AWAITING_REVIEW)); // seen again
    n.statusChanged(at(ItemStatus.AWAITING_REVIEW), at(ItemStatus.IN_PROGRESS)); // rejected
    n.jobFinished(at(ItemStatus.IN_PROGRESS), at(ItemStatus.AWAITING_REVIEW), null); // back for review
    notifier.close(Duration.ofSeconds(5));

    assertEquals(List.of("awaiting_review:A", "awaiting_review:A"), kinds());
  }

  @Test
  void with_checks_an_item_is_done_news_when_its_checks_turn_green_not_when_it_is_pushed() {
    Notifier notifier = notifier();
    RunNotifications n = new RunNotifications(notifier, Clock.fixed(NOW, ZoneOffset.UTC), true);

    n.jobFinished(at(ItemStatus.IN_PROGRESS), at(ItemStatus.DONE), null); // pushed: on its way to its checks
    n.statusChanged(at(ItemStatus.DONE), at(ItemStatus.AWAITING_CHECKS));
    n.statusChanged(at(ItemStatus.AWAITING_CHECKS), at(ItemStatus.DONE)); // green
    notifier.close(Duration.ofSeconds(5));

    assertEquals(List.of("item_done:A"), kinds());
  }

  @Test
  void a_usage_limit_pause_is_news_once_per_pause_and_a_rate_limit_is_not() {
    Notifier notifier = notifier();
    RunNotifications n = new RunNotifications(notifier, Clock.fixed(NOW, ZoneOffset.UTC));
    AgentPauses.Pause usage = new AgentPauses.Pause("claude", OutcomeClass.USAGE_LIMIT, NOW.plusSeconds(3600),
        "usage limit", NOW, 1);

    n.profilePaused(usage);
    n.profilePaused(usage); // a second job of the same profile met the same limit
    n.profilePaused(new AgentPauses.Pause("claude", OutcomeClass.RATE_LIMITED, NOW.plusSeconds(30), "slow down",
        NOW, 1));
    n.pauseEnded("claude");
    n.profilePaused(usage); // a new pause after the first ended
    notifier.close(Duration.ofSeconds(5));

    assertEquals(List.of("usage_limit_paused", "usage_limit_paused"), kinds());
    assertEquals("claude", sent.get(0).details().get("profile"));
    assertEquals(NOW.plusSeconds(3600).toString(), sent.get(0).details().get("until"));
  }

  @Test
  void each_budget_threshold_is_news_once_and_the_run_end_says_why_it_ended() {
    Notifier notifier = notifier();
    RunNotifications n = new RunNotifications(notifier, Clock.fixed(NOW, ZoneOffset.UTC));

    n.budgetWarning("--max-cost", 80, "80% of the run's budget of $1.00 (--max-cost) is spent: $0.81");
    n.budgetWarning("--max-cost", 80, "80% again");
    n.budgetWarning("--max-cost", 95, "95% of the run's budget of $1.00 (--max-cost) is spent: $0.96");
    n.budgetWarning("budget.per_day@2026-11-26T00:00:00Z", 80, "80% of the day's budget");
    notifier.close(Duration.ofSeconds(5));

    assertEquals(List.of("budget_80", "budget_95", "budget_80"), kinds());
    assertEquals("95", sent.get(1).details().get("percent"));
  }

  @Test
  void every_item_event_of_an_item_with_a_pull_request_carries_its_url() {
    Notifier notifier = notifier();
    RunNotifications n = new RunNotifications(notifier, Clock.fixed(NOW, ZoneOffset.UTC), true,
        id -> id.equals("A") ? "https://example.test/pr/7" : null);
    ItemState red = new ItemState(item("A"), 1, true, new Progress(ItemStatus.IN_PROGRESS, "build", 0, null, null,
        "FAILED test_login", null, null));

    n.statusChanged(at(ItemStatus.AWAITING_CHECKS), red);
    n.statusChanged(at(ItemStatus.AWAITING_CHECKS), at(ItemStatus.DONE));
    n.statusChanged(at(ItemStatus.IN_PROGRESS), at(ItemStatus.BLOCKED));
    n.statusChanged(new ItemState(item("B"), 1, true, Progress.of(ItemStatus.NEW).atPhase(ItemStatus.IN_PROGRESS,
        "build")),
        new ItemState(item("B"), 1, true, Progress.of(ItemStatus.AWAITING_REVIEW)));
    notifier.close(Duration.ofSeconds(5));

    assertEquals(List.of("checks_red:A", "item_done:A", "item_blocked:A", "awaiting_review:B"), kinds());
    for (int i = 0; i < 3; i++) {
      assertEquals("https://example.test/pr/7", sent.get(i).details().get("pull_request"), kinds().get(i));
    }
    assertEquals(null, sent.get(3).details().get("pull_request"), "B has no pull request");
  }

  @Test
  void the_run_end_counts_what_waits_for_a_person_and_the_paused_profiles() {
    Notifier notifier = notifier();
    RunNotifications n = new RunNotifications(notifier, Clock.fixed(NOW, ZoneOffset.UTC));
    n.profilePaused(new AgentPauses.Pause("claude", OutcomeClass.USAGE_LIMIT, NOW.plusSeconds(60), "limit", NOW, 1));
    n.profilePaused(new AgentPauses.Pause("codex", OutcomeClass.RATE_LIMITED, NOW.plusSeconds(60), "slow", NOW, 1));
    n.pauseEnded("codex");
    n.runEnded(new dev.orchestrate.scheduler.RunReport(3, 4, 1, 1, 0, 1, 1, 5,
        dev.orchestrate.scheduler.HaltReason.ALL_DONE, Duration.ofSeconds(1), 0, dev.orchestrate.item.SyncResult.NONE,
        List.of(), null, null, null, null, null, null, null, List.of("C", "D"), null, null, List.of("B"), 1, null));
    notifier.close(Duration.ofSeconds(5));

    NotificationEvent end = sent.get(sent.size() - 1);
    assertEquals("run_finished", end.kind().wireName());
    assertEquals("2", end.details().get("awaiting_review"));
    assertEquals("C, D", end.details().get("awaiting_review_ids"));
    assertEquals("1", end.details().get("blocked"));
    assertEquals("B", end.details().get("blocked_ids"));
    assertEquals("0", end.details().get("awaiting_checks"));
    assertEquals("1", end.details().get("paused"));
    assertEquals("claude", end.details().get("paused_profiles"));
  }
}
