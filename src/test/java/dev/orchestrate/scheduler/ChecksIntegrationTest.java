package dev.orchestrate.scheduler;

import static dev.orchestrate.testing.Fixtures.feature;
import static dev.orchestrate.testing.Fixtures.item;
import static dev.orchestrate.testing.Fixtures.outcome;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.config.Pipeline;
import dev.orchestrate.item.ChecksReport;
import dev.orchestrate.item.ItemLanding;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.ItemWorkspaces;
import dev.orchestrate.item.Progress;
import dev.orchestrate.item.SlowWork;
import dev.orchestrate.item.Step;
import dev.orchestrate.outcome.AgentResult;
import dev.orchestrate.outcome.AgentSession;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a run does with a poll's answer: green makes the item done, red sends it back with the
 * report and (the phase it goes back to being the one that last succeeded) that attempt's session
 * to continue, pending changes nothing.
 */
class ChecksIntegrationTest {
  private static final Pipeline PIPELINE = feature();

  /** Landing whose checks of every item answer {@code kind}, due at once. */
  private static ItemLanding answering(String kind, String phase) {
    return new ItemLanding() {
      @Override
      public List<String> checksDue() {
        return List.of("A");
      }

      @Override
      public SlowWork<ChecksReport> checkSlowly(String itemId) {
        return SlowWork.done(new ChecksReport(kind, kind.equals("red") ? "FAILED test_login" : kind, 1, phase));
      }
    };
  }

  private static ItemState awaiting() {
    return new ItemState(item("A"), 1, true, Progress.of(ItemStatus.AWAITING_CHECKS));
  }

  private static List<Step> poll(Integration integration) {
    List<Step> written = new ArrayList<>();
    integration.checksDue(Map.of("A", awaiting()), Map.of(PIPELINE.name(), PIPELINE), written::add);
    return written;
  }

  private static String last() {
    return PIPELINE.phases().get(PIPELINE.phases().size() - 1).name();
  }

  @Test
  void red_continues_the_session_of_the_last_phase_when_it_goes_back_there() {
    Integration integration = new Integration(ItemWorkspaces.SHARED, answering("red", null), null, Clock.systemUTC());
    integration.succeeded("A", last(), "claude", outcome(AgentResult.PHASE_COMPLETE, "done", "")
        .withSession(new AgentSession("sess-1", AgentSession.Start.FRESH)));
    List<Step> written = poll(integration);
    assertEquals(1, written.size());
    Progress next = written.get(0).next().progress();
    assertEquals(ItemStatus.IN_PROGRESS, next.status());
    assertEquals(last(), next.phase());
    assertTrue(next.lastFailure().contains("FAILED test_login"), next.lastFailure());
    assertEquals(new Progress.Resume("claude", "sess-1"), next.resume());

    // another phase than the one the session worked in: a fresh start
    Integration other = new Integration(ItemWorkspaces.SHARED, answering("red", PIPELINE.phases().get(0).name()), null,
        Clock.systemUTC());
    other.succeeded("A", last(), "claude", outcome(AgentResult.PHASE_COMPLETE, "done", "")
        .withSession(new AgentSession("sess-1", AgentSession.Start.FRESH)));
    assertNull(poll(other).get(0).next().progress().resume());
  }

  @Test
  void green_makes_the_item_done_and_pending_changes_nothing() {
    assertEquals(ItemStatus.DONE,
        poll(new Integration(ItemWorkspaces.SHARED, answering("green", null), null, Clock.systemUTC())).get(0)
            .next().status());
    assertEquals(List.of(),
        poll(new Integration(ItemWorkspaces.SHARED, answering("pending", null), null, Clock.systemUTC())));
    Step blocked = poll(new Integration(ItemWorkspaces.SHARED, answering("blocked", null), null, Clock.systemUTC()))
        .get(0);
    assertEquals(ItemStatus.BLOCKED, blocked.next().status());
  }
}
