package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.cli.live.LineSink;
import dev.orchestrate.item.SyncResult;
import dev.orchestrate.scheduler.RunListener;
import dev.orchestrate.yaml.Problem;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BacklogNoticesTest {

  @Test
  void every_run_listener_callback_reaches_the_progress_display() {
    // BacklogNotices sits in front of the progress display: a callback it does not override is lost.
    List<String> missing = new ArrayList<>();
    for (Method m : RunListener.class.getMethods()) {
      if (Modifier.isStatic(m.getModifiers())) {
        continue;
      }
      try {
        BacklogNotices.class.getDeclaredMethod(m.getName(), m.getParameterTypes());
      } catch (NoSuchMethodException e) {
        missing.add(m.getName());
      }
    }
    assertEquals(List.of(), missing);
  }

  @Test
  void a_reload_is_described_by_what_changed() {
    assertEquals("2 added, 1 no longer listed",
        BacklogNotices.describe(new SyncResult(List.of("A", "B"), List.of("C"), List.of())));
    assertEquals("1 back in the backlog", BacklogNotices.describe(new SyncResult(List.of(), List.of(), List.of("R"))));
    assertEquals("no items added or removed", BacklogNotices.describe(SyncResult.NONE));
  }

  /** A live display that owns the bottom of the terminal: notices must go through it. */
  static final class Sink implements RunListener, LineSink {
    final List<String> lines = new ArrayList<>();

    @Override
    public void printLine(String line) {
      lines.add(line);
    }
  }

  @Test
  void with_a_live_status_area_warnings_and_reloads_are_printed_above_it_not_straight_to_stderr() {
    Sink live = new Sink();
    StringWriter err = new StringWriter();
    BacklogNotices notices = new BacklogNotices(live, new PrintWriter(err), Clock.systemUTC(), false);
    notices.backlogRejected(List.of(new Problem("backlog.yaml", 3, 5, "bad status")));
    notices.backlogReloaded(new SyncResult(List.of("A"), List.of(), List.of()));
    assertEquals("", err.toString());
    assertEquals(2, live.lines.size());
    assertTrue(live.lines.get(0).startsWith("orchestrate: warning: backlog.yaml:3:5"), live.lines.get(0));
    assertTrue(live.lines.get(1).endsWith("backlog reloaded: 1 added"), live.lines.get(1));
  }

  @Test
  void without_one_they_go_to_stderr() {
    StringWriter err = new StringWriter();
    new BacklogNotices(RunListener.NONE, new PrintWriter(err), Clock.systemUTC(), false)
        .backlogReloaded(new SyncResult(List.of("A"), List.of(), List.of()));
    assertTrue(err.toString().contains("backlog reloaded: 1 added"), err.toString());
  }

  @Test
  void a_rejected_edit_with_thousands_of_problems_warns_about_fifty_and_counts_the_rest() {
    StringWriter err = new StringWriter();
    BacklogNotices notices = new BacklogNotices(new RunListener() {}, new PrintWriter(err, true),
        Clock.systemUTC(), false);
    List<Problem> problems = new ArrayList<>();
    for (int i = 1; i <= 5000; i++) {
      problems.add(new Problem("backlog.yaml", i, 5, "bad id 'x\ny'"));
    }
    notices.backlogRejected(problems);
    List<String> lines = err.toString().lines().toList();
    assertEquals(ErrorHandler.MAX_PROBLEMS + 1, lines.size());
    assertEquals("orchestrate: warning: backlog.yaml:1:5: bad id 'x\\ny' (edit ignored until fixed; the run goes on)",
        lines.get(0));
    assertEquals("orchestrate: warning: backlog.yaml: 4950 more problems not shown", lines.get(lines.size() - 1));
  }

  @Test
  void a_budget_warning_is_one_line_above_the_live_area_or_on_stderr_even_when_quiet() {
    Sink live = new Sink();
    new BacklogNotices(live, new PrintWriter(new StringWriter()), Clock.systemUTC(), true)
        .budgetWarning("80% of the run's budget of $1.00 (--max-cost) is spent: $0.80");
    assertEquals(List.of("orchestrate: warning: 80% of the run's budget of $1.00 (--max-cost) is spent: $0.80"),
        live.lines);
    StringWriter err = new StringWriter();
    new BacklogNotices(RunListener.NONE, new PrintWriter(err), Clock.systemUTC(), true)
        .budgetWarning("95% of the per-day budget of $20.00 (budget.per_day) is spent: $19.00 since "
            + "2026-11-26 00:00 UTC");
    assertEquals("orchestrate: warning: 95% of the per-day budget of $20.00 (budget.per_day) is spent: $19.00 since "
        + "2026-11-26 00:00 UTC", err.toString().strip());
  }
}
