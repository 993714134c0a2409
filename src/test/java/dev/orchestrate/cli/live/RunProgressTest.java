package dev.orchestrate.cli.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.Progress;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentResult;
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
    assertTrue(lines.get(lines.size() - 1).endsWith(" claude paused until 13:00 (UTC), usage limit"),
        lines.toString());
  }

  private static ItemState item(String id, String phase) {
    return new ItemState(Fixtures.item(id), 1, true,
        new Progress(ItemStatus.IN_PROGRESS, phase, 0, null, null, null, null, null));
  }
}
