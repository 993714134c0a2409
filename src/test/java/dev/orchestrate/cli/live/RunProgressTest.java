package dev.orchestrate.cli.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.item.AgentPauses;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.Progress;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentResult;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.testing.Fixtures;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RunProgressTest {
  /** A clock the test moves by hand. */
  private static final class HandClock extends Clock {
    Instant now = Instant.parse("2026-01-01T10:00:00Z");

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  @Test
  void overlapping_jobs_each_report_the_time_since_their_own_start() {
    HandClock clock = new HandClock();
    List<String> lines = new ArrayList<>();
    RunProgress progress = new RunProgress(lines::add, clock);
    ItemState a = item("A", "build");
    ItemState b = item("B", "fix");

    progress.jobStarted(a, "build", 1);
    clock.now = clock.now.plusSeconds(2);
    progress.jobStarted(b, "fix", 1);
    clock.now = clock.now.plusSeconds(3);

    assertEquals("A build: phase_complete in 5.0s", progress.finishedText(a, a,
        Fixtures.outcome(AgentResult.PHASE_COMPLETE, "ok", "")));
    assertEquals("B fix: phase_complete in 3.0s", progress.finishedText(b, b,
        Fixtures.outcome(AgentResult.PHASE_COMPLETE, "ok", "")));
    assertEquals(2, lines.size());
    assertEquals(true, lines.get(1).endsWith(" B fix (attempt 1) started"), lines.get(1));
  }

  /** A red gate (or no changes, or a protected file) is named by its class, as jobs' OUTCOME column names it. */
  @Test
  void an_attempt_orchestrate_failed_says_the_class_jobs_shows_and_a_plain_failure_still_says_failed() {
    HandClock clock = new HandClock();
    RunProgress progress = new RunProgress(line -> {}, clock);
    ItemState a = item("A", "build");
    AgentOutcome done = Fixtures.outcome(AgentResult.PHASE_COMPLETE, "ok", "");
    for (OutcomeClass kind : List.of(OutcomeClass.VERIFY_FAILED, OutcomeClass.NO_CHANGES,
        OutcomeClass.PROTECTED_CHANGED)) {
      progress.jobStarted(a, "build", 1);
      clock.now = clock.now.plusSeconds(1);
      AgentOutcome refuted = done.refutedAs(kind, "why");
      assertEquals(kind, refuted.kind());
      assertEquals("A build: " + kind.key() + " in 1.0s", progress.finishedText(a, a, refuted));
    }
    progress.jobStarted(a, "build", 1);
    assertEquals("A build: failed in 0.0s",
        progress.finishedText(a, a, Fixtures.outcome(AgentResult.FAILED, "", "exit 1")));
  }

  @Test
  void a_limited_attempt_says_its_class_that_it_is_not_counted_and_what_the_agent_said() {
    HandClock clock = new HandClock();
    List<String> lines = new ArrayList<>();
    RunProgress progress = new RunProgress(lines::add, clock);
    ItemState a = item("A", "build");
    progress.jobStarted(a, "build", 1);
    clock.now = clock.now.plusSeconds(2);
    AgentOutcome limited = Fixtures.outcome(AgentResult.FAILED, "", "You've hit your limit").withProvider(
        dev.orchestrate.outcome.ProviderFailure.of(dev.orchestrate.outcome.OutcomeClass.USAGE_LIMIT,
            "You've hit your limit · resets 1pm (UTC)"));
    assertEquals("A build: failed in 2.0s (usage_limit, not counted): You've hit your limit · resets 1pm (UTC)",
        progress.finishedText(a, a, limited));
    progress.providerLimit("claude paused until 13:00 (UTC), usage limit");
    progress.profilePaused(pause(clock.now, Instant.parse("2026-01-01T13:00:30Z")));
    assertTrue(lines.get(lines.size() - 1).endsWith(" claude paused until 13:00 (UTC), usage limit"),
        lines.toString());
  }

  @Test
  void a_pause_is_told_once_for_every_job_its_limit_refused_and_again_only_when_its_end_moves() {
    HandClock clock = new HandClock();
    List<String> lines = new ArrayList<>();
    RunProgress progress = new RunProgress(lines::add, clock);
    Instant since = clock.now;
    Instant until = since.plusSeconds(75);
    for (int job = 0; job < 4; job++) { // a wave of four jobs refused by one limit
      progress.providerLimit("claude paused until 10:02 (UTC), usage limit");
      progress.profilePaused(pause(since, until));
    }
    assertEquals(1, lines.size(), lines.toString());
    assertTrue(lines.get(0).endsWith(" claude paused until 10:02 (UTC), usage limit"), lines.toString());

    progress.providerLimit("claude paused until 10:03 (UTC), usage limit");
    progress.profilePaused(pause(since, until.plusSeconds(60)));
    assertEquals(2, lines.size(), "its end moved: told again\n" + lines);

    // Re-announced without words: said with its end to the second.
    progress.profilePaused(pause(since.plusSeconds(200), since.plusSeconds(245)));
    assertEquals(3, lines.size(), lines.toString());
    assertTrue(lines.get(2).endsWith(" claude paused until " + RunProgress.TIME.format(since.plusSeconds(245))
        + ", usage limit"), lines.toString());
    assertTrue(RunProgress.TIME.format(since.plusSeconds(245)).endsWith(":05"), "to the second");
  }

  @Test
  void words_no_pause_follows_are_printed_at_the_next_event_or_when_the_run_ends() {
    HandClock clock = new HandClock();
    List<String> lines = new ArrayList<>();
    RunProgress progress = new RunProgress(lines::add, clock);
    progress.providerLimit("backup: invalid x-api-key");
    assertEquals(List.of(), lines, "held until it is known whether a pause follows");
    progress.jobStarted(item("A", "build"), "build", 1);
    assertEquals(2, lines.size(), lines.toString());
    assertTrue(lines.get(0).endsWith(" backup: invalid x-api-key"), lines.toString());
    assertTrue(lines.get(1).endsWith(" A build (attempt 1) started"), lines.toString());

    progress.providerLimit("claude: credit balance is too low");
    progress.close();
    assertTrue(lines.get(2).endsWith(" claude: credit balance is too low"), lines.toString());
  }

  @Test
  void with_several_profiles_each_job_line_names_the_one_that_runs_it() {
    HandClock clock = new HandClock();
    for (boolean several : new boolean[] {true, false}) {
      List<String> lines = new ArrayList<>();
      RunProgress progress = new RunProgress(lines::add, clock, several);
      ItemState a = item("A", "build");
      progress.jobStarted(a, "build", 2, "backup");
      clock.now = clock.now.plusSeconds(1);
      progress.jobFinished(a, a, Fixtures.outcome(AgentResult.PHASE_COMPLETE, "ok", ""));
      String tag = several ? " [backup]" : "";
      assertTrue(lines.get(0).endsWith(" A build" + tag + " (attempt 2) started"), lines.toString());
      assertTrue(lines.get(1).endsWith(" A build" + tag + ": phase_complete in 1.0s"), lines.toString());
    }
  }

  private static AgentPauses.Pause pause(Instant since, Instant until) {
    return new AgentPauses.Pause("claude", OutcomeClass.USAGE_LIMIT, until, "You've hit your limit", since, 1);
  }

  private static ItemState item(String id, String phase) {
    return new ItemState(Fixtures.item(id), 1, true,
        new Progress(ItemStatus.IN_PROGRESS, phase, 0, null, null, null, null, null));
  }
}
