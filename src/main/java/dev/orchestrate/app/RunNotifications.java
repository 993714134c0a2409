package dev.orchestrate.app;

import dev.orchestrate.item.AgentPauses;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.Transitions;
import dev.orchestrate.notify.EventKind;
import dev.orchestrate.notify.NotificationEvent;
import dev.orchestrate.notify.Notifier;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.scheduler.HaltReason;
import dev.orchestrate.scheduler.RunListener;
import dev.orchestrate.scheduler.RunReport;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * What a run tells the {@code notify:} sinks: the scheduler's callbacks as notification events.
 * It only hands events to the {@link Notifier}, which never blocks and never throws, so a dead
 * endpoint costs the scheduler thread nothing. Repeats are the notifier's to drop (one
 * {@code item_blocked} per item per block: an item that leaves blocked is {@linkplain
 * Notifier#cleared cleared}).
 */
final class RunNotifications implements RunListener {
  private final Notifier notifier;
  private final Clock clock;
  private final boolean doneAfterChecks;
  private final Function<String, String> pullRequests;
  /** The agent profiles a provider's limit pauses now (for the run's end). */
  private final Set<String> paused = ConcurrentHashMap.newKeySet();
  private volatile String runId = "0";

  RunNotifications(Notifier notifier, Clock clock) {
    this(notifier, clock, false);
  }

  RunNotifications(Notifier notifier, Clock clock, boolean doneAfterChecks) {
    this(notifier, clock, doneAfterChecks, id -> null);
  }

  /**
   * @param doneAfterChecks {@code execution.checks} is set: a pushed item passes through done on its
   *                        way to {@code awaiting_checks}, so {@code item_done} is sent only when its
   *                        checks turn green
   * @param pullRequests    an item's pull request URL ({@code execution.merge: push}), or null: every
   *                        item event of an item that has one carries it as {@code pull_request}
   */
  RunNotifications(Notifier notifier, Clock clock, boolean doneAfterChecks, Function<String, String> pullRequests) {
    this.notifier = notifier;
    this.clock = clock;
    this.doneAfterChecks = doneAfterChecks;
    this.pullRequests = pullRequests;
  }

  @Override
  public void runRecorded(long id) {
    runId = Long.toString(id);
  }

  @Override
  public void jobFinished(ItemState before, ItemState after, AgentOutcome outcome) {
    statusChanged(before, after);
  }

  @Override
  public void statusChanged(ItemState before, ItemState after) {
    ItemStatus was = before == null ? null : before.status();
    ItemStatus now = after.status();
    if ((was == ItemStatus.BLOCKED || was == ItemStatus.AWAITING_REVIEW) && now != was) {
      notifier.cleared(after.id()); // it may be announced again when it comes back
    }
    if (now == was) {
      return;
    }
    if (was == ItemStatus.AWAITING_CHECKS && now.isRunningPhases()) {
      notifier.cleared(after.id()); // each red round (and each round of changes requested) is announced
      String failure = after.progress().lastFailure();
      boolean review = failure != null && failure.startsWith(Transitions.CHANGES_REQUESTED_INTRO);
      Map<String, String> details = new LinkedHashMap<>();
      details.put("title", after.definition().title());
      putIfSet(details, "phase", after.progress().phase());
      putIfSet(details, review ? "reviews" : "report", failure);
      publishItem(review ? EventKind.CHANGES_REQUESTED : EventKind.CHECKS_RED, after.id(), details);
    } else if (now == ItemStatus.BLOCKED) {
      Map<String, String> details = new LinkedHashMap<>();
      details.put("title", after.definition().title());
      putIfSet(details, "phase", after.progress().phase());
      putIfSet(details, "reason", after.progress().blockedReason());
      publishItem(EventKind.ITEM_BLOCKED, after.id(), details);
    } else if (now == ItemStatus.AWAITING_REVIEW) {
      Map<String, String> details = new LinkedHashMap<>();
      details.put("title", after.definition().title());
      putIfSet(details, "summary", after.progress().phaseSummary());
      publishItem(EventKind.AWAITING_REVIEW, after.id(), details);
    } else if (now == ItemStatus.DONE && (!doneAfterChecks || was == ItemStatus.AWAITING_CHECKS)) {
      Map<String, String> details = new LinkedHashMap<>();
      details.put("title", after.definition().title());
      publishItem(EventKind.ITEM_DONE, after.id(), details);
    }
  }

  @Override
  public void profilePaused(AgentPauses.Pause pause) {
    paused.add(pause.profile());
    if (pause.kind() != OutcomeClass.USAGE_LIMIT) {
      return; // a rate limit is a short wait, not news
    }
    Map<String, String> details = new LinkedHashMap<>();
    details.put("profile", pause.profile());
    details.put("until", pause.until() == null ? "unknown" : pause.until().toString());
    details.put("message", pause.message());
    publish(EventKind.USAGE_LIMIT_PAUSED, null, details);
  }

  @Override
  public void pausedAtStart(AgentPauses.Pause pause, String message) {
    paused.add(pause.profile());
    // announced when it was met, by the run that met it
  }

  @Override
  public void pauseEnded(String profile) {
    paused.remove(profile);
    notifier.resumed(profile);
  }

  @Override
  public void budgetWarning(String budget, int percent, String message) {
    EventKind kind = percent >= 95 ? EventKind.BUDGET_95 : EventKind.BUDGET_80;
    Map<String, String> details = new LinkedHashMap<>();
    details.put("budget", budget);
    details.put("percent", Integer.toString(percent));
    details.put("message", message);
    publish(kind, null, details);
  }

  /**
   * The run's end: {@code run_halted} with its reason, or {@code run_finished} when nothing was left
   * to run; both count what waits for a person (review, blocked) or for something else (checks,
   * landing, a paused agent profile), and name the items a person acts on.
   */
  void runEnded(RunReport report) {
    runId = Long.toString(report.runId());
    HaltReason halt = report.haltReason();
    Map<String, String> details = new LinkedHashMap<>();
    details.put("reason", halt.key());
    putIfSet(details, "detail", report.haltDetail());
    details.put("done", Integer.toString(report.done()));
    details.put("blocked", Integer.toString(report.blocked()));
    details.put("remaining", Integer.toString(report.remaining()));
    details.put("awaiting_review", Integer.toString(report.awaitingReview().size()));
    details.put("awaiting_checks", Integer.toString(report.awaitingChecks().size()));
    details.put("landing", Integer.toString(report.landing().size()));
    details.put("paused", Integer.toString(paused.size()));
    details.put("done_this_run", Integer.toString(report.doneThisRun()));
    putIfSet(details, "blocked_ids", String.join(", ", report.blockedIds()));
    putIfSet(details, "awaiting_review_ids", String.join(", ", report.awaitingReview()));
    putIfSet(details, "paused_profiles", String.join(", ", new java.util.TreeSet<>(paused)));
    publish(halt == HaltReason.ALL_DONE ? EventKind.RUN_FINISHED : EventKind.RUN_HALTED, null, details);
  }

  /** An item's event, with its pull request's URL when it has one (read at the moment, never failing the run). */
  private void publishItem(EventKind kind, String itemId, Map<String, String> details) {
    String url;
    try {
      url = pullRequests.apply(itemId);
    } catch (RuntimeException e) {
      url = null; // the news goes out without it
    }
    putIfSet(details, "pull_request", url);
    publish(kind, itemId, details);
  }

  private void publish(EventKind kind, String itemId, Map<String, String> details) {
    notifier.publish(new NotificationEvent(kind, itemId, runId, clock.instant(), details));
  }

  private static void putIfSet(Map<String, String> details, String key, String value) {
    if (value != null && !value.isEmpty()) {
      details.put(key, value);
    }
  }
}
