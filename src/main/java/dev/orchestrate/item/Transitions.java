package dev.orchestrate.item;

import dev.orchestrate.config.Durations;
import dev.orchestrate.config.PhaseDef;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.limits.Cuts;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.CommandRun;
import dev.orchestrate.outcome.OutcomeClass;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The item life cycle as pure functions: no I/O, no clock. The run loop persists whatever these
 * return before it makes its next decision.
 */
public final class Transitions {
  /** Cap of the notes given with {@code unblock}; they go into a prompt, so they stay bounded. */
  public static final int UNBLOCK_NOTES_MAX_CHARS = 8000;
  /**
   * Cap of a blocked reason: a sentence of ours plus the agent's context, itself at most
   * {@link AgentOutcome#TEXT_MAX_CHARS}, so it only bites on a context that did not come through
   * the agent protocol or on absurdly long names.
   */
  public static final int BLOCKED_REASON_MAX_CHARS = 10_000;
  /** Cap of the phase summary and the last failure stored on an item (what the agent protocol allows). */
  public static final int ITEM_TEXT_MAX_CHARS = AgentOutcome.TEXT_MAX_CHARS;

  private Transitions() {
  }

  /**
   * Returns a blocked item to the status it was blocked from and the phase it was blocked in,
   * with a fresh count of attempts and the operator's notes (capped) for its next prompt. The
   * event is an {@code item.status} change from {@code blocked}, which compaction keeps.
   *
   * @throws InvalidTransitionException when the item is not blocked or the notes are blank
   */
  public static Step unblock(ItemState item, String notes) {
    Progress p = item.progress();
    if (p.status() != ItemStatus.BLOCKED) {
      throw new InvalidTransitionException("item " + item.id() + " is " + p.status().key()
          + ", not blocked; only blocked items can be unblocked");
    }
    if (notes == null || notes.isBlank()) {
      throw new InvalidTransitionException("unblock needs notes for the agent");
    }
    // An item marked blocked in the backlog was never started: it starts from the beginning.
    ItemStatus to = p.blockedFrom() == null ? ItemStatus.NEW : p.blockedFrom();
    String phase = to.isRunningPhases() ? p.phase() : null;
    if (to.isRunningPhases() && phase == null) {
      throw new InvalidTransitionException("item " + item.id() + " was blocked from " + to.key()
          + " without a phase; the state database is inconsistent");
    }
    Cuts cuts = new Cuts();
    Progress next = new Progress(to, phase, 0, null, null, null, null,
        cuts.cap(notes.strip(), UNBLOCK_NOTES_MAX_CHARS));
    return new Step(item.with(next), List.of(Event.statusChange(item.id(), ItemStatus.BLOCKED, to, phase,
        "unblocked with notes")), cuts.count());
  }

  /**
   * A human approved an item awaiting review: it is done (and integrated like any done item).
   *
   * @throws InvalidTransitionException when the item is not awaiting review
   */
  public static Step approve(ItemState item) {
    requireAwaiting(item, "approved");
    return new Step(item.with(Progress.of(ItemStatus.DONE)), List.of(Event.statusChange(item.id(),
        ItemStatus.AWAITING_REVIEW, ItemStatus.DONE, null, "approved")));
  }

  /**
   * A human rejected an item awaiting review: it goes back to {@code phase} of its pipeline (null:
   * the pipeline's last phase) with a fresh count of attempts and the reviewer's notes (capped)
   * for its next prompt, exactly as {@link #unblock} carries an operator's notes.
   *
   * @throws InvalidTransitionException when the item is not awaiting review, the notes are blank or
   *                                    the pipeline has no such phase
   */
  public static Step reject(ItemState item, Pipeline pipeline, String notes, String phase) {
    requireAwaiting(item, "rejected");
    if (notes == null || notes.isBlank()) {
      throw new InvalidTransitionException("reject needs notes for the agent");
    }
    String to = phase == null ? pipeline.phases().get(pipeline.phases().size() - 1).name() : phase;
    ItemStatus status;
    if (indexOf(pipeline.phases(), to) >= 0) {
      status = ItemStatus.IN_PROGRESS;
    } else if (indexOf(pipeline.prePhases(), to) >= 0) {
      status = ItemStatus.SCOPING;
    } else {
      throw new InvalidTransitionException("pipeline " + pipeline.name() + " of item " + item.id() + " has no phase '"
          + to + "': its phases are " + String.join(", ", pipeline.allPhases().stream().map(PhaseDef::name).toList()));
    }
    Cuts cuts = new Cuts();
    Progress next = new Progress(status, to, 0, null, null, null, null,
        cuts.cap(notes.strip(), UNBLOCK_NOTES_MAX_CHARS));
    return new Step(item.with(next), List.of(Event.statusChange(item.id(), ItemStatus.AWAITING_REVIEW, status, to,
        "rejected with notes")), cuts.count());
  }

  /**
   * The default action of the pipeline's {@code on_review_timeout} for an item that has awaited
   * review since {@code since}, once {@code review_timeout} has passed at {@code now}; null while
   * it has not (or the item does not await review, or its pipeline has no timeout). Approve makes
   * it done; reject sends it back to the last phase with a note saying so; block blocks it from
   * awaiting_review (unblock returns it there, its wait starting again).
   */
  public static Step reviewTimedOut(ItemState item, Pipeline pipeline, java.time.Instant since,
      java.time.Instant now) {
    Pipeline.ReviewTimeout timeout = pipeline.reviewTimeout();
    if (item.status() != ItemStatus.AWAITING_REVIEW || timeout == null || since == null
        || now.isBefore(since.plus(timeout.after()))) {
      return null;
    }
    String waited = "awaited review longer than review_timeout " + Durations.format(
        timeout.after());
    return switch (timeout.action()) {
      case APPROVE -> new Step(item.with(Progress.of(ItemStatus.DONE)), List.of(Event.statusChange(item.id(),
          ItemStatus.AWAITING_REVIEW, ItemStatus.DONE, null, "approved by on_review_timeout: " + waited)));
      case REJECT -> reject(item, pipeline, "Nobody reviewed this item's work in time (it " + waited
          + ", and on_review_timeout is reject). Review your own work in this phase against the task, improve "
          + "what needs it, and report again.", null);
      case BLOCK -> move(item, Progress.blocked(ItemStatus.AWAITING_REVIEW, null, "it " + waited
          + " (on_review_timeout: block): unblock it to await review again, then approve or reject it"), null);
    };
  }

  private static void requireAwaiting(ItemState item, String verb) {
    if (item.status() != ItemStatus.AWAITING_REVIEW) {
      throw new InvalidTransitionException("item " + item.id() + " is " + item.status().key()
          + ", not awaiting_review; only items awaiting review can be " + verb);
    }
  }

  /**
   * Moves an item that is not working on a phase towards one: {@code new} enters scoping (or goes
   * straight to ready when the pipeline has no pre-phases), {@code ready} enters in_progress.
   */
  public static Step advance(ItemState item, Pipeline pipeline) {
    Progress p = item.progress();
    return switch (p.status()) {
      case NEW -> pipeline.prePhases().isEmpty()
          ? move(item, p.atPhase(ItemStatus.READY, null), null)
          : move(item, p.atPhase(ItemStatus.SCOPING, pipeline.prePhases().get(0).name()), null);
      case READY -> move(item, p.atPhase(ItemStatus.IN_PROGRESS, pipeline.phases().get(0).name()), null);
      default -> throw new InvalidTransitionException(
          "item " + item.id() + " is " + p.status().key() + "; only new and ready items advance");
    };
  }

  /**
   * Applies the outcome of one attempt of the item's current phase.
   *
   * @param maxRetries retries allowed after the first attempt; exhausting them blocks the item
   */
  public static Step afterAttempt(ItemState item, Pipeline pipeline, AgentOutcome outcome, int maxRetries) {
    return afterAttempt(item, pipeline, outcome, maxRetries, null);
  }

  /**
   * As above, for an attempt of the agent profile {@code profile}: a retry keeps the session the
   * next attempt may continue ({@link Resumption#after}).
   */
  public static Step afterAttempt(ItemState item, Pipeline pipeline, AgentOutcome outcome, int maxRetries,
      String profile) {
    Progress p = item.progress();
    if (!p.status().isRunningPhases()) {
      throw new InvalidTransitionException("item " + item.id() + " is " + p.status().key() + ", not in a phase");
    }
    List<PhaseDef> stage = p.status() == ItemStatus.SCOPING ? pipeline.prePhases() : pipeline.phases();
    int index = indexOf(stage, p.phase());
    Event result = phaseResult(item.id(), p.phase(), p.attempts() + 1, outcome);
    Cuts cuts = new Cuts();
    Step step = switch (outcome.result()) {
      case PHASE_COMPLETE -> {
        boolean hasNext = index >= 0 && index + 1 < stage.size();
        if (!hasNext && p.status() != ItemStatus.SCOPING && pipeline.review() == Pipeline.Review.REQUIRED) {
          // review: required: the item waits for a human, its last summary kept for the reviewer.
          yield withResult(result, move(item, new Progress(ItemStatus.AWAITING_REVIEW, p.phase(), 0, null, null, null,
              cuts.cap(outcome.summary(), ITEM_TEXT_MAX_CHARS), null), null));
        }
        if (!hasNext && p.status() != ItemStatus.SCOPING) {
          // Terminal success: the summary is never kept for a done item (so nothing is cut either).
          yield withResult(result, move(item, Progress.of(ItemStatus.DONE), null));
        }
        Progress done = p.withoutUnblockNotes().withSummary(cuts.cap(outcome.summary(), ITEM_TEXT_MAX_CHARS));
        yield withResult(result, move(item, hasNext
            ? done.atPhase(p.status(), stage.get(index + 1).name())
            : done.atPhase(ItemStatus.READY, null), null));
      }
      case SUBPHASE_COMPLETE -> withResult(result, new Step(
          item.with(p.withoutUnblockNotes().withSummary(cuts.cap(outcome.summary(), ITEM_TEXT_MAX_CHARS))
              .atPhase(p.status(), p.phase())),
          List.of()));
      case BLOCKED -> withResult(result, move(item,
          Progress.blocked(p.status(), p.phase(), cuts.cap((setupFailed(outcome)
              ? "the worktree's workspace.setup failed before phase " + p.phase()
              : outcome.verdict() == OutcomeClass.BLOCKED ? "orchestrate blocked it after phase " + p.phase()
                  : "agent reported blocked in phase " + p.phase())
              + reasonSuffix(outcome.context()),
              BLOCKED_REASON_MAX_CHARS)),
          null));
      case FAILED -> {
        if (outcome.kind().uncounted()) {
          // not held against the phase (a budget cut): the same attempt again, later
          yield afterLimit(item, outcome, profile);
        }
        int attempts = p.attempts() + 1;
        if (attempts > maxRetries) {
          yield withResult(result, move(item, Progress.blocked(p.status(), p.phase(),
              cuts.cap("retries exhausted in phase " + p.phase() + " after " + attempts
                  + (attempts == 1 ? " attempt" : " attempts") + reasonSuffix(outcome.context()),
                  BLOCKED_REASON_MAX_CHARS)),
              null));
        }
        yield withResult(result, new Step(item.with(p.withFailure(cuts.cap(outcome.context(), ITEM_TEXT_MAX_CHARS))
            .withResume(Resumption.after(outcome, profile))), List.of()));
      }
    };
    return cuts.count() == 0 ? step : new Step(step.next(), step.events(), cuts.count());
  }

  /**
   * An attempt its provider ended (a usage or rate limit, a refused key), or the agent's own budget
   * flag cut ({@code budget_exhausted}): the item stays where it is, its attempts uncounted and its
   * last failure unchanged, so the next attempt is the same one again (continuing the session when
   * {@link Resumption#after} keeps it); only the phase result is recorded, with its class.
   */
  public static Step afterLimit(ItemState item, AgentOutcome outcome) {
    return afterLimit(item, outcome, null);
  }

  /** As above, for an attempt of {@code profile}: the next attempt may continue its session. */
  public static Step afterLimit(ItemState item, AgentOutcome outcome, String profile) {
    Progress p = item.progress();
    if (!p.status().isRunningPhases()) {
      throw new InvalidTransitionException("item " + item.id() + " is " + p.status().key() + ", not in a phase");
    }
    Progress.Resume resume = Resumption.after(outcome, profile);
    ItemState next = resume == null && p.resume() == null ? item : item.with(p.withResume(resume));
    return new Step(next, List.of(phaseResult(item.id(), p.phase(), p.attempts() + 1, outcome)));
  }

  /** The phase an item in a phase-running status is at, looked up in its pipeline. */
  public static PhaseDef currentPhase(ItemState item, Pipeline pipeline) {
    Progress p = item.progress();
    List<PhaseDef> stage = p.status() == ItemStatus.SCOPING ? pipeline.prePhases() : pipeline.phases();
    int index = indexOf(stage, p.phase());
    return index < 0 ? null : stage.get(index);
  }

  /**
   * Repairs an item whose phase no longer exists in its (edited) pipeline: it restarts the stage
   * from its first phase. Returns null when nothing needs repair.
   */
  public static Step realign(ItemState item, Pipeline pipeline) {
    Progress p = item.progress();
    if (!p.status().isRunningPhases() || currentPhase(item, pipeline) != null) {
      return null;
    }
    List<PhaseDef> stage = p.status() == ItemStatus.SCOPING ? pipeline.prePhases() : pipeline.phases();
    if (stage.isEmpty()) {
      // Pre-phases were removed from the pipeline while the item was scoping.
      return move(item, p.atPhase(ItemStatus.READY, null), "phase '" + p.phase() + "' no longer exists");
    }
    return new Step(item.with(p.atPhase(p.status(), stage.get(0).name())), List.of(new Event(item.id(),
        Event.ITEM_STATUS, Map.of("from", p.status().key(), "to", p.status().key(),
            "phase", stage.get(0).name(), "reason", "phase '" + p.phase() + "' no longer exists"))));
  }

  /**
   * Blocks an item at once, where it stands, for a reason the operator must resolve.
   *
   * @throws InvalidTransitionException when the item is already done or blocked (terminal)
   */
  public static Step block(ItemState item, String reason) {
    Progress p = item.progress();
    if (p.status().isTerminal()) {
      throw new InvalidTransitionException("item " + item.id() + " is " + p.status().key()
          + "; a done or blocked item cannot be blocked");
    }
    Cuts cuts = new Cuts();
    Step step = move(item, Progress.blocked(p.status(), p.phase(), cuts.cap(reason, BLOCKED_REASON_MAX_CHARS)), null);
    return new Step(step.next(), step.events(), cuts.count());
  }

  /**
   * Blocks a done item whose work could not be integrated (execution.workspace: worktree): it was
   * done, and {@code unblock} returns it to done, after which the next run integrates it again.
   */
  public static Step integrationConflict(ItemState item, String reason) {
    requireLanding(item, "waits for integration");
    Cuts cuts = new Cuts();
    Step step = move(item, Progress.blocked(item.status(), null, cuts.cap(reason, BLOCKED_REASON_MAX_CHARS)), null);
    return new Step(step.next(), step.events(), cuts.count());
  }

  /** A done (or landing) item's branch was pushed and execution.checks is set: it awaits its checks. */
  public static Step awaitChecks(ItemState item, String message) {
    requireLanding(item, "'s pushed branch awaits checks");
    return move(item, Progress.of(ItemStatus.AWAITING_CHECKS), message);
  }

  /**
   * The same step, landing instead of done: with worktrees that land through the merge queue, an
   * item whose work is complete is {@code landing} until that work is on the base branch, so that
   * nothing counts it done (its dependents wait) before then.
   */
  public static Step toLand(Step step) {
    if (step.next().status() != ItemStatus.DONE) {
      return step;
    }
    List<Event> events = new ArrayList<>();
    for (Event e : step.events()) {
      if (e.kind().equals(Event.ITEM_STATUS) && ItemStatus.DONE.key().equals(e.payload().get("to"))) {
        Map<String, Object> payload = new java.util.LinkedHashMap<>(e.payload());
        payload.put("to", ItemStatus.LANDING.key());
        events.add(new Event(e.itemId(), e.kind(), payload));
      } else {
        events.add(e);
      }
    }
    return new Step(step.next().with(Progress.of(ItemStatus.LANDING)), events, step.truncatedValues());
  }

  /** The landing item's work is on the base branch (or pushed, with no checks to wait for): it is done. */
  public static Step landed(ItemState item, String message) {
    if (item.status() != ItemStatus.LANDING) {
      throw new InvalidTransitionException("item " + item.id() + " is " + item.status().key() + ", not landing");
    }
    return move(item, Progress.of(ItemStatus.DONE), message);
  }

  /**
   * The landing item's integration gates were red on its work as it would land: it goes back to
   * its pipeline's last phase with the report (capped) as its last failure, for the agent to fix
   * on top of the base branch as it is now.
   */
  public static Step landingRed(ItemState item, Pipeline pipeline, String report, int round) {
    if (item.status() != ItemStatus.LANDING) {
      throw new InvalidTransitionException("item " + item.id() + " is " + item.status().key() + ", not landing");
    }
    String to = pipeline.phases().get(pipeline.phases().size() - 1).name();
    Cuts cuts = new Cuts();
    String failure = cuts.cap("Your work passed its gates on its own, but not once rebased onto the base branch "
        + "as it is now (other work landed there meanwhile), so it did not land (integration round " + round
        + "). Your worktree now holds your work on top of the base branch; make it pass there. The gate's "
        + "report:\n" + report, ITEM_TEXT_MAX_CHARS);
    Progress next = new Progress(ItemStatus.IN_PROGRESS, to, 0, null, null, failure, null, null);
    return new Step(item.with(next), List.of(Event.statusChange(item.id(), ItemStatus.LANDING, ItemStatus.IN_PROGRESS,
        to, "integration gates red (round " + round + ")")), cuts.count());
  }

  /**
   * What one landing attempt of a landing (or done) item leads to: done when its work landed, back
   * to its last phase when its integration gates were red (blocked after the pipeline's
   * {@code integration_max_rounds}, or when it is not landing), blocked on a conflict or a refusal,
   * awaiting its checks after a push; null when it stays as it is (deferred: tried again later).
   */
  public static Step afterLanding(ItemState item, Pipeline pipeline, IntegrationResult result) {
    if (result.kind().equals("integration_failed")) {
      if (item.status() == ItemStatus.LANDING && pipeline != null && result.round() < pipeline.integrationMaxRounds()) {
        return landingRed(item, pipeline, result.message(), result.round());
      }
      String limit = pipeline == null ? "" : " (integration_max_rounds " + pipeline.integrationMaxRounds() + ")";
      return integrationConflict(item, "integration gates red " + Math.max(1, result.round()) + " time"
          + (result.round() > 1 ? "s" : "") + limit + ", so nothing landed; the last report: " + result.message()
          + "; fix the branch (or unblock " + item.id() + " --notes ... for its agent)");
    }
    if (result.blocks()) {
      return integrationConflict(item, result.message());
    }
    if (result.kind().equals("awaiting_checks")) {
      return awaitChecks(item, result.message());
    }
    if (result.landed() && item.status() == ItemStatus.LANDING) {
      return landed(item, result.message());
    }
    return null;
  }

  private static void requireLanding(ItemState item, String what) {
    if (item.status() != ItemStatus.DONE && item.status() != ItemStatus.LANDING) {
      throw new InvalidTransitionException("item " + item.id() + " is " + item.status().key()
          + "; only a done or landing item" + (what.startsWith("'") ? what : " " + what));
    }
  }

  /** The item's checks passed: it is done (its branch is already pushed). */
  public static Step checksGreen(ItemState item, String message) {
    requireChecks(item);
    return move(item, Progress.of(ItemStatus.DONE), message);
  }

  /**
   * The item's checks failed: it goes back to {@code phase} of its pipeline (null, or a phase the
   * pipeline does not have: its last phase) with the report (capped) as its last failure, for the
   * next prompt's Previous Failure.
   */
  public static Step checksRed(ItemState item, Pipeline pipeline, String phase, String report, int round) {
    return backFromChecks(item, pipeline, phase, "The checks (execution.checks) of your pushed branch failed (round "
        + round + "). Their report:\n" + report, "checks red (round " + round + ")");
  }

  /** Back from awaiting_checks to {@code phase} (or the last), with {@code failure} (capped) for the next prompt. */
  private static Step backFromChecks(ItemState item, Pipeline pipeline, String phase, String failure, String why) {
    requireChecks(item);
    String to = phase != null && indexOf(pipeline.allPhases(), phase) >= 0 ? phase
        : pipeline.phases().get(pipeline.phases().size() - 1).name();
    ItemStatus status = indexOf(pipeline.phases(), to) >= 0 ? ItemStatus.IN_PROGRESS : ItemStatus.SCOPING;
    Cuts cuts = new Cuts();
    Progress next = new Progress(status, to, 0, null, null, cuts.cap(failure, ITEM_TEXT_MAX_CHARS), null, null);
    return new Step(item.with(next), List.of(Event.statusChange(item.id(), ItemStatus.AWAITING_CHECKS, status, to,
        why)), cuts.count());
  }

  /** How the last failure of an item sent back by a review asking for changes begins (notifications tell it by this). */
  public static final String CHANGES_REQUESTED_INTRO = "A review of your pull request asks for changes";

  /**
   * A review of the item's pull request asks for changes (execution.review_feedback): it goes back
   * to {@code phase} of its pipeline (null, or a phase it does not have: its last phase) with what
   * the reviewers wrote (capped) as its last failure, for the next prompt, as a red check's report.
   */
  public static Step changesRequested(ItemState item, Pipeline pipeline, String phase, String reviews, int round) {
    return backFromChecks(item, pipeline, phase, CHANGES_REQUESTED_INTRO + " (round " + round + "). Address what "
        + "the reviewers wrote; your work is pushed again once this phase and those after it succeed. The reviews "
        + "and comments not sent to you before:\n" + reviews, "changes requested (round " + round + ")");
  }

  /**
   * The item's checks failed too often or stayed pending too long: it is blocked, as a done item
   * whose integration failed ({@code unblock} returns it to done; the next run pushes it and its
   * checks start again).
   */
  public static Step checksBlocked(ItemState item, String reason) {
    requireChecks(item);
    Cuts cuts = new Cuts();
    Progress next = Progress.blocked(ItemStatus.DONE, null, cuts.cap(reason, BLOCKED_REASON_MAX_CHARS));
    return new Step(item.with(next), List.of(Event.statusChange(item.id(), ItemStatus.AWAITING_CHECKS,
        ItemStatus.BLOCKED, null, next.blockedReason())), cuts.count());
  }

  private static void requireChecks(ItemState item) {
    if (item.status() != ItemStatus.AWAITING_CHECKS) {
      throw new InvalidTransitionException("item " + item.id() + " is " + item.status().key()
          + ", not awaiting_checks");
    }
  }

  private static Step move(ItemState item, Progress next, String reason) {
    ItemStatus from = item.status();
    String why = reason != null ? reason : next.blockedReason();
    return new Step(item.with(next), List.of(Event.statusChange(item.id(), from, next.status(), next.phase(), why)));
  }

  private static Step withResult(Event result, Step step) {
    List<Event> events = new ArrayList<>();
    events.add(result);
    events.addAll(step.events());
    return new Step(step.next(), events);
  }

  private static Event phaseResult(String itemId, String phase, int attempt, AgentOutcome outcome) {
    Map<String, Object> payload = new LinkedHashMap<>();
    payload.put("phase", phase);
    payload.put("attempt", attempt);
    payload.put("result", outcome.result().key());
    payload.put("ending", outcome.ending().name().toLowerCase(java.util.Locale.ROOT));
    payload.put("outcome", outcome.kind().key());
    outcome.exitCode().ifPresent(code -> payload.put("exit_code", code));
    return new Event(itemId, Event.PHASE_RESULT, payload);
  }

  private static boolean setupFailed(AgentOutcome outcome) {
    return outcome.checks().stream()
        .anyMatch(c -> c.kind() == CommandRun.Kind.SETUP && !c.passed());
  }

  private static String reasonSuffix(String context) {
    if (context == null || context.isBlank()) {
      return "";
    }
    return ": " + context.strip();
  }

  private static int indexOf(List<PhaseDef> stage, String name) {
    for (int i = 0; i < stage.size(); i++) {
      if (stage.get(i).name().equals(name)) {
        return i;
      }
    }
    return -1;
  }
}
