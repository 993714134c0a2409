package dev.orchestrate.landing;

import dev.orchestrate.config.ChecksConfig;
import dev.orchestrate.config.Durations;
import dev.orchestrate.config.ProjectCommand;
import dev.orchestrate.config.ReviewFeedbackConfig;
import dev.orchestrate.item.ChecksReport;
import dev.orchestrate.item.LastSession;
import dev.orchestrate.item.Progress;
import dev.orchestrate.item.SlowWork;
import dev.orchestrate.limits.Quote;
import dev.orchestrate.workspace.ChecksRecord;
import dev.orchestrate.workspace.ReviewRecord;
import dev.orchestrate.workspace.WorkspaceRecord;
import dev.orchestrate.workspace.WorkspaceStore;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An item's wait after {@code merge: push} pushed it (docs/workspaces.md): {@code execution.checks}
 * polled until green or red, and with {@code execution.review_feedback} the pull request's reviews
 * polled beside them until approved (or changes requested), then with {@code land: auto} the pull
 * request merged by {@code execution.land_command}. Nothing is merged unless the checks' last poll
 * said green and the reviews' last poll said approved, both in the same poll.
 *
 * <p>Each poll's commands run off the scheduler thread ({@link Offloaded}); what they said is
 * recorded back on it. The wait is persisted ({@link ChecksRecord}, {@link ReviewRecord}): a
 * restarted run resumes it, and a review already sent to the agent is never sent again.
 */
final class ChecksWait {
  private static final Logger log = LoggerFactory.getLogger(Landing.class);
  /** The longest report of a red check kept (its output's tail, masked). */
  static final int REPORT_MAX_CHARS = 4_000;

  private final ChecksConfig checks;
  private final WorkspaceStore store;
  private final Clock clock;
  private final Path dir;
  private volatile PushOutput mask = PushOutput.of(UnaryOperator.identity());
  /** The environment the commands start from. */
  private volatile Map<String, String> commandEnv = System.getenv();

  /** @param dir where the commands run: the user's checkout */
  ChecksWait(ChecksConfig checks, WorkspaceStore store, Clock clock, Path dir) {
    this.checks = checks;
    this.store = store;
    this.clock = clock;
    this.dir = dir;
  }

  void environment(Map<String, String> env) {
    commandEnv = env;
  }

  void masking(UnaryOperator<String> secrets) {
    mask = PushOutput.of(secrets);
  }

  /**
   * After a successful push: the item's wait starts now, its first poll due now. A series that
   * blocked the item (its last red round, its last round of changes requested) starts afresh, and
   * land_command's failures always do.
   */
  void start(String itemId) {
    Instant at = clock.instant();
    int rounds = store.checks(itemId).rounds();
    store.checks(itemId, new ChecksRecord(at, at, rounds >= checks.maxRounds() ? 0 : rounds), at);
    ReviewFeedbackConfig feedback = checks.feedback();
    if (feedback != null) {
      ReviewRecord review = store.review(itemId);
      store.review(itemId, review.withRounds(review.rounds() >= feedback.maxRounds() ? 0 : review.rounds())
          .withLandFailures(0), at);
    }
  }

  /** What one poll's commands said: the checks', and the reviews' (null when not run). */
  private record Polled(PullRequestCommand.Outcome checks, PullRequestCommand.Outcome feedback) {
  }

  /**
   * Polls the item's checks (and reviews) once, the commands off the scheduler thread; null when it
   * awaits nothing. A poll stopped by a cancel records nothing.
   */
  SlowWork<ChecksReport> pollSlowly(WorkspaceRecord ws) {
    ChecksRecord wait = store.checks(ws.itemId());
    if (!wait.waiting()) {
      return SlowWork.now(() -> null);
    }
    Map<String, String> values = values(ws);
    ReviewFeedbackConfig feedback = checks.feedback();
    return new Offloaded<Polled, ChecksReport>(stopper -> {
      PullRequestCommand.Outcome run = PullRequestCommand.run(checks.command(), values, dir, commandEnv, stopper);
      if (feedback == null || red(run) || stopper.stopped()) {
        return new Polled(run, null);
      }
      return new Polled(run, PullRequestCommand.run(feedback.command(), values, dir, commandEnv, stopper));
    }, (polled, self) -> {
      ChecksReport report = polled(ws, wait, polled);
      if (report != LAND) {
        return report;
      }
      self.then(land(ws, wait, values));
      return null;
    });
  }

  /** The placeholders of the checks, review and land commands. */
  private Map<String, String> values(WorkspaceRecord ws) {
    Map<String, String> values = new LinkedHashMap<>();
    values.put("branch", ws.branch());
    values.put("base", ws.baseBranch());
    values.put("item", ws.itemId());
    String pr = store.push(ws.itemId()).url();
    values.put("pull_request", pr == null ? "" : pr);
    return values;
  }

  private static boolean red(PullRequestCommand.Outcome run) {
    return run.exitCode() != null && run.exitCode() != 0 && run.exitCode() != ChecksConfig.PENDING;
  }

  /** The command's output as every text that reaches a prompt: masked, controls escaped, its end kept. */
  private String report(PullRequestCommand.Outcome run) {
    String output = Quote.escapedLines(mask.mask(run.output())).strip();
    return output.length() > REPORT_MAX_CHARS ? "[...]" + output.substring(output.length() - REPORT_MAX_CHARS)
        : output;
  }

  /** What the poll comes to: a report, or {@link #LAND} when the pull request is to be merged now. */
  private ChecksReport polled(WorkspaceRecord ws, ChecksRecord wait, Polled polled) {
    PullRequestCommand.Outcome run = polled.checks();
    Instant at = clock.instant();
    if (red(run)) {
      return red(ws, wait, run, at);
    }
    ReviewFeedbackConfig feedback = checks.feedback();
    ReviewFeedback.Reading reading = polled.feedback() == null ? null : read(ws, polled.feedback());
    if (reading != null) {
      ChecksReport settled = reviewed(ws, wait, reading, at);
      if (settled != null) {
        return settled;
      }
    }
    if (!run.ok()) { // pending: 75, stopped at its poll's bound, or not started
      if (!at.isBefore(wait.since().plus(checks.timeout()))) {
        return blocked(ws, wait, WorkspaceRecord.Integration.TIMED_OUT, "checks still pending",
            "checks still pending after " + Durations.format(checks.timeout()) + " (execution.checks_timeout)"
                + (run.failure() == null ? "" : ": " + run.failure())
                + (report(run).isEmpty() ? "" : ": " + report(run)) + "; unblock " + ws.itemId()
                + " to push and wait again");
      }
      return pending(ws, wait, (run.failure() != null ? run.failure() : "checks pending")
          + (reading == null || reading.problem() == null ? "" : "; " + reading.problem()), at);
    }
    if (feedback == null) {
      store.checks(ws.itemId(), new ChecksRecord(null, null, wait.rounds()), at); // the rounds stay to be shown
      return new ChecksReport("green", "checks green for " + ws.branch(), wait.rounds(), checks.phase(), last(wait));
    }
    if (reading.verdict() == ReviewFeedback.Verdict.APPROVED) {
      if (feedback.lands()) {
        return LAND;
      }
      store.checks(ws.itemId(), new ChecksRecord(null, null, wait.rounds()), at);
      return new ChecksReport("green", "checks green and the pull request approved for " + ws.branch(),
          wait.rounds(), checks.phase(), last(wait));
    }
    if (!at.isBefore(wait.since().plus(feedback.timeout()))) {
      return blocked(ws, wait, WorkspaceRecord.Integration.TIMED_OUT, "not approved",
          "checks green, but the pull request not approved " + Durations.format(feedback.timeout())
              + " after the push (execution.review_feedback_timeout; the reviews say "
              + reading.verdict().key() + (reading.problem() == null ? "" : ": " + reading.problem())
              + "); unblock " + ws.itemId() + " to push and wait again");
    }
    return pending(ws, wait, "checks green, awaiting approval (the reviews say " + reading.verdict().key()
        + (reading.problem() == null ? "" : ": " + reading.problem()) + ")", at);
  }

  /** The answer of {@link #polled} that asks for land_command (never recorded, never returned further). */
  private static final ChecksReport LAND = new ChecksReport("land", "green and approved: land_command runs", 0,
      null);

  /** The review command's output read, or why not (then pending). */
  private ReviewFeedback.Reading read(WorkspaceRecord ws, PullRequestCommand.Outcome run) {
    if (!run.ok()) {
      return ReviewFeedback.Reading.unreadable("execution.review_feedback " + (run.failure() != null
          ? run.failure() : "exited with " + run.exitCode())
          + (report(run).isEmpty() ? ""
              : ": " + Quote.line(report(run), 300)));
    }
    if (run.output().contains(" bytes of output left out ...]")) { // PullRequestCommand's bound cut it
      return ReviewFeedback.Reading.unreadable("execution.review_feedback printed more than "
          + PullRequestCommand.OUTPUT_MAX_BYTES / 1024 + " KiB: ask for fewer fields, or filter them (gh's --jq)");
    }
    return ReviewFeedback.read(mask.mask(run.output()), store.review(ws.itemId()).sent(),
        store.push(ws.itemId()).sha());
  }

  /**
   * What the reviews settle whatever the checks say, or null: merged on the forge (done), closed
   * (blocked), or changes requested with feedback not sent before (back to the phase with it, or
   * blocked at the last round).
   */
  private ChecksReport reviewed(WorkspaceRecord ws, ChecksRecord wait, ReviewFeedback.Reading reading,
      Instant at) {
    String pr = store.push(ws.itemId()).url();
    switch (reading.verdict()) {
      case MERGED -> {
        return merged(ws, wait, "the pull request " + (pr == null ? "" : pr + " ") + "is merged", at);
      }
      case CLOSED -> {
        return blocked(ws, wait, WorkspaceRecord.Integration.LAND_FAILED, "pull request closed",
            "the pull request " + (pr == null ? "" : pr + " ") + "was closed without being merged: reopen it and "
                + "unblock " + ws.itemId() + ", or drop the item");
      }
      case CHANGES_REQUESTED -> {
        if (reading.fresh().isEmpty()) {
          return null; // all of it sent already: the reviewer has yet to look again
        }
      }
      default -> {
        return null;
      }
    }
    ReviewFeedbackConfig feedback = checks.feedback();
    ReviewRecord review = store.review(ws.itemId());
    int round = review.rounds() + 1;
    store.review(ws.itemId(), review.withSent(reading.fresh().stream().map(ReviewFeedback.Entry::key).toList())
        .withRounds(round), at);
    store.checks(ws.itemId(), new ChecksRecord(null, null, wait.rounds()), at);
    String notes = ReviewFeedback.notes(reading.fresh(), mask::mask);
    log.info("{}: changes requested on its pull request (round {})", ws.itemId(), round);
    if (round >= feedback.maxRounds()) {
      store.integration(ws.itemId(), WorkspaceRecord.Integration.CHANGES_REQUESTED,
          "changes requested " + round + " times", at);
      return new ChecksReport("blocked", "changes requested " + round + " times (execution.review_feedback_max_rounds "
          + feedback.maxRounds() + "); the last review: " + notes, round, checks.feedbackPhase(), last(wait));
    }
    store.integration(ws.itemId(), WorkspaceRecord.Integration.CHANGES_REQUESTED,
        "changes requested (round " + round + ")", at);
    return new ChecksReport("changes_requested", notes, round, checks.feedbackPhase(), last(wait));
  }

  private ChecksReport red(WorkspaceRecord ws, ChecksRecord wait, PullRequestCommand.Outcome run, Instant at) {
    int round = wait.rounds() + 1;
    String output = report(run);
    String report = (output.isEmpty() ? "(no output)" : output) + "\n(execution.checks exited with "
        + run.exitCode() + ")";
    store.checks(ws.itemId(), new ChecksRecord(null, null, round), at);
    if (round >= checks.maxRounds()) {
      store.integration(ws.itemId(), WorkspaceRecord.Integration.CHECKS_RED, "checks red " + round + " times", at);
      return new ChecksReport("blocked", "checks red " + round + " times "
          + "(execution.checks_max_rounds " + checks.maxRounds() + "); the last report: " + report, round,
          checks.phase(), last(wait));
    }
    store.integration(ws.itemId(), WorkspaceRecord.Integration.CHECKS_RED, "checks red (round " + round + ")", at);
    return new ChecksReport("red", report, round, checks.phase(), last(wait));
  }

  private ChecksReport pending(WorkspaceRecord ws, ChecksRecord wait, String message, Instant at) {
    log.debug("{}: {}", ws.itemId(), message);
    store.checks(ws.itemId(), new ChecksRecord(wait.since(), at.plus(checks.interval()), wait.rounds()), at);
    return new ChecksReport("pending", message, wait.rounds(), checks.phase(), last(wait));
  }

  private ChecksReport blocked(WorkspaceRecord ws, ChecksRecord wait, WorkspaceRecord.Integration integration,
      String note, String reason) {
    Instant at = clock.instant();
    store.checks(ws.itemId(), new ChecksRecord(null, null, wait.rounds()), at);
    store.integration(ws.itemId(), integration, note, at);
    return new ChecksReport("blocked", reason, wait.rounds(), checks.phase(), last(wait));
  }

  private ChecksReport merged(WorkspaceRecord ws, ChecksRecord wait, String message, Instant at) {
    store.checks(ws.itemId(), new ChecksRecord(null, null, wait.rounds()), at);
    store.review(ws.itemId(), store.review(ws.itemId()).withLandFailures(0), at);
    store.integration(ws.itemId(), WorkspaceRecord.Integration.MERGED, null, at);
    return new ChecksReport("merged", message, wait.rounds(), checks.phase(), last(wait));
  }

  /**
   * land: auto, once the same poll said green and approved: execution.land_command runs off the
   * scheduler thread. Its success makes the item done (merged); a failure is polled again after the
   * interval (the checks and reviews first, so nothing is merged that turned red or unapproved
   * meanwhile), and the {@value ReviewFeedbackConfig#LAND_MAX_FAILURES}th in a row blocks the item.
   */
  private SlowWork<ChecksReport> land(WorkspaceRecord ws, ChecksRecord wait, Map<String, String> values) {
    ProjectCommand command = checks.feedback().landCommand();
    return new Offloaded<PullRequestCommand.Outcome, ChecksReport>(
        stopper -> PullRequestCommand.run(command, values, dir, commandEnv, stopper),
        (run, self) -> {
          Instant at = clock.instant();
          String output = report(run);
          if (run.ok()) {
            log.info("{}: pull request merged by execution.land_command", ws.itemId());
            return merged(ws, wait, "merged by execution.land_command" + (output.isEmpty() ? ""
                : ": " + Quote.line(output, 300)), at);
          }
          ReviewRecord review = store.review(ws.itemId());
          int failures = review.landFailures() + 1;
          store.review(ws.itemId(), review.withLandFailures(failures), at);
          String why = "execution.land_command " + (run.failure() != null ? run.failure()
              : "exited with " + run.exitCode()) + (output.isEmpty() ? "" : ": " + mask.tail(output));
          log.warn("{}: not merged: {}", ws.itemId(), why);
          if (failures >= ReviewFeedbackConfig.LAND_MAX_FAILURES) {
            return blocked(ws, wait, WorkspaceRecord.Integration.LAND_FAILED, "land_command failed",
                why + " (failed " + failures + " times in a row: merge it yourself, or fix the cause and unblock "
                    + ws.itemId() + ")");
          }
          store.integration(ws.itemId(), WorkspaceRecord.Integration.PUSHED, why, at);
          return pending(ws, wait, why + "; tried again after the next poll (failure " + failures + " of "
              + ReviewFeedbackConfig.LAND_MAX_FAILURES + ")", at);
        });
  }

  /** The session kept with the wait, as the scheduler continues it. */
  private static LastSession last(ChecksRecord wait) {
    ChecksRecord.Resume r = wait.resume();
    return r == null || r.profile() == null || r.session() == null ? null
        : new LastSession(r.phase(), new Progress.Resume(r.profile(), r.session()));
  }
}
