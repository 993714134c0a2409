package dev.orchestrate.cli.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.orchestrate.backlog.BacklogItem;
import dev.orchestrate.backlog.InitialStatus;
import dev.orchestrate.backlog.Priority;
import dev.orchestrate.config.Pipeline;
import dev.orchestrate.item.AgentPauses;
import dev.orchestrate.item.ItemState;
import dev.orchestrate.item.ItemStatus;
import dev.orchestrate.item.Progress;
import dev.orchestrate.outcome.AgentOutcome;
import dev.orchestrate.outcome.AgentResult;
import dev.orchestrate.outcome.OutcomeClass;
import dev.orchestrate.outcome.ProviderFailure;
import dev.orchestrate.scheduler.ItemFilter;
import dev.orchestrate.testing.Fixtures;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * The live view as a person sees it: the exact bytes it writes, fed to a VT100 screen model, and
 * the screen and scrollback asserted.
 */
class LiveViewTest {
  private static final Pipeline FEATURE = Fixtures.feature();

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

  /** A terminal of a settable size whose bytes go to a screen model. */
  private static final class Terminal implements LiveView.Screen {
    final StringWriter bytes = new StringWriter();
    final PrintWriter writer = new PrintWriter(bytes);
    final Vt100Screen screen;
    int rows;
    int columns;
    private int fed;

    Terminal(int rows, int columns) {
      this.rows = rows;
      this.columns = columns;
      this.screen = new Vt100Screen(rows, columns);
    }

    @Override
    public int[] size() {
      return new int[] {rows, columns};
    }

    @Override
    public PrintWriter writer() {
      return writer;
    }

    /** Feeds what was written since the last call to the screen model. */
    Vt100Screen screen() {
      writer.flush();
      String all = bytes.toString();
      screen.feed(all.substring(fed));
      fed = all.length();
      return screen;
    }

    void resize(int newRows, int newColumns) {
      screen();
      screen.resize(newRows, newColumns);
      rows = newRows;
      columns = newColumns;
    }
  }

  private final HandClock clock = new HandClock();

  private LiveView view(Terminal terminal, List<ItemState> items, int maxConcurrent, boolean colour) {
    LiveView view = new LiveView(terminal, clock, () -> items, Map.of("feature", FEATURE), maxConcurrent, colour);
    view.show();
    return view;
  }

  private static ItemState item(String id, Priority priority, ItemStatus status, String phase) {
    BacklogItem def = new BacklogItem(id, "Title of " + id, "feature", priority, List.of(), List.of(), "",
        InitialStatus.NEW);
    return new ItemState(def, 1, true, new Progress(status, phase, 0, null, null, null, null, null));
  }

  private static List<ItemState> items(int n) {
    List<ItemState> items = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      items.add(item("WRK-" + i, Priority.MEDIUM, ItemStatus.NEW, null));
    }
    return items;
  }

  private static long count(List<String> lines, String part) {
    return lines.stream().filter(l -> l.contains(part)).count();
  }

  /** The area is the screen's bottom rows, from the header down. */
  private static List<String> area(Vt100Screen screen) {
    List<String> lines = screen.lines();
    int header = -1;
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).startsWith("orchestrate run · ")) {
        header = i;
      }
    }
    assertTrue(header >= 0, "no header on the screen:\n" + String.join("\n", lines));
    return lines.subList(header, lines.size());
  }

  private void startJobs(LiveView view, int n) {
    for (int i = 1; i <= n; i++) {
      view.jobStarted(item("WRK-" + i, Priority.MEDIUM, ItemStatus.IN_PROGRESS, "design"), "design", 1);
      clock.now = clock.now.plusSeconds(1);
    }
  }

  @Test
  void one_two_and_four_concurrent_jobs_each_show_one_line_under_one_intact_header() {
    for (int jobs : new int[] {1, 2, 4}) {
      Terminal terminal = new Terminal(40, 120);
      List<ItemState> items = items(6);
      LiveView view = view(terminal, items, jobs, false);
      view.runStarted(items, ItemFilter.ALL);
      startJobs(view, jobs);
      for (int tick = 0; tick < 5; tick++) {
        clock.now = clock.now.plusSeconds(1);
        view.tick();
      }
      Vt100Screen screen = terminal.screen();
      List<String> area = area(screen);
      assertEquals(1, count(screen.everything(), "orchestrate run · "), jobs + " jobs:\n" + screen.everything());
      assertTrue(area.get(0).startsWith("orchestrate run · 0/6 done · " + jobs + (jobs == 1 ? " phase" : " phases")
          + " · 0:" + String.format("%02d", jobs + 5) + " elapsed"), area.get(0));
      assertEquals(jobs, count(area, "▶ "), String.join("\n", area));
      for (int i = 1; i <= jobs; i++) {
        assertEquals(1, count(area, "▶ WRK-" + i + " design (attempt 1) "), String.join("\n", area));
      }
      assertEquals(2 + jobs + LiveStatus.FINISHED_SHOWN, area.size(), "header, bar, jobs, finished: the bottom rows");
      view.close();
    }
  }

  @Test
  void the_area_growing_while_jobs_start_leaves_no_stray_rows_and_scrolls_only_lines() {
    Terminal terminal = new Terminal(12, 80);
    List<ItemState> items = items(4);
    LiveView view = view(terminal, items, 4, false);
    view.runStarted(items, ItemFilter.ALL);
    startJobs(view, 4);
    view.tick();
    Vt100Screen screen = terminal.screen();
    List<String> lines = screen.lines();
    // header, bar, four jobs, three finished rows (blank): nine rows at the bottom, the lines above.
    assertEquals(lines.size() - 9, lines.indexOf(area(screen).get(0)), String.join("\n", lines));
    assertTrue(lines.get(lines.size() - 10).endsWith(" WRK-4 design (attempt 1) started"), String.join("\n", lines));
    List<String> started = screen.everything().stream().filter(l -> l.endsWith(" started")).toList();
    assertEquals(4, started.size(), String.join("\n", screen.everything()));
    assertEquals(0, count(screen.scrollback(), "▶"), "the area never goes to the scrollback");
    assertEquals(List.of(), screen.oddities());
  }

  @Test
  void lines_printed_while_the_area_is_drawn_scroll_above_it_into_the_scrollback_in_order() {
    Terminal terminal = new Terminal(15, 60);
    List<ItemState> items = items(2);
    LiveView view = view(terminal, items, 2, false);
    view.runStarted(items, ItemFilter.ALL);
    startJobs(view, 2);
    for (int i = 0; i < 50; i++) {
      view.printLine("line " + i + " " + "x".repeat(i % 3 == 0 ? 70 : 5)); // some wrap
      if (i % 7 == 0) {
        view.tick();
      }
    }
    Vt100Screen screen = terminal.screen();
    List<String> all = screen.everything();
    int last = -1;
    for (int i = 0; i < 50; i++) {
      int at = -1;
      for (int j = 0; j < all.size(); j++) {
        if (all.get(j).startsWith("line " + i + " ")) {
          assertEquals(-1, at, "line " + i + " twice");
          at = j;
        }
      }
      assertTrue(at > last, "line " + i + " missing or out of order:\n" + String.join("\n", all));
      last = at;
    }
    assertEquals(1, count(all, "orchestrate run · "));
    assertEquals(2, count(area(screen), "▶ "));
  }

  @Test
  void a_resize_repaints_the_area_at_the_new_bottom_and_fits_its_width() {
    Terminal terminal = new Terminal(40, 120);
    List<ItemState> items = items(3);
    LiveView view = view(terminal, items, 2, false);
    view.runStarted(items, ItemFilter.ALL);
    startJobs(view, 2);
    terminal.resize(20, 50);
    view.tick();
    Vt100Screen screen = terminal.screen();
    List<String> area = area(screen);
    assertEquals(1, count(screen.lines(), "orchestrate run · "), String.join("\n", screen.everything()));
    assertEquals(2, count(area, "▶ "));
    screen.lines().forEach(l -> assertTrue(l.length() < 50, l));
    view.printLine("after the resize");
    terminal.resize(30, 100);
    view.tick();
    screen = terminal.screen();
    assertEquals(1, count(screen.lines(), "orchestrate run · "), String.join("\n", screen.lines()));
    assertTrue(screen.everything().stream().anyMatch(l -> l.endsWith("after the resize")));
    assertEquals(2, count(screen.everything(), "design (attempt 1) started"), "the lines above the area survive");
    assertEquals(1, count(screen.everything(), "orchestrate run · "), "no rewrapped remnant of the old area");
    assertEquals(2 + 2 + LiveStatus.FINISHED_SHOWN, area(screen).size(), "the area sits at the bottom");
  }

  /** Rows and columns before and after: a screen that grows (its top filled from a short scrollback), one that shrinks. */
  private static final int[][] RESIZES = {{24, 90, 40, 120}, {40, 120, 24, 90}};

  /** A run of {@code n} items with two jobs started, on {@code terminal}. */
  private LiveView twoJobsRunning(Terminal terminal, int n) {
    List<ItemState> items = items(n);
    LiveView view = view(terminal, items, n, false);
    view.runStarted(items, ItemFilter.ALL);
    startJobs(view, 2);
    return view;
  }

  @Test
  void a_line_or_a_job_that_comes_between_a_resize_and_its_tick_is_painted_at_the_new_size() {
    // the size changes, and an event paints before the tick (SIGWINCH's or the second's) has
    // seen it: painted at the old size, a grown screen kept a stale copy of the area in its middle
    // (LiveViewInTmuxIT saw one in a loaded verify); a shrunk one, rows past its bottom
    for (int[] sizes : RESIZES) {
      Terminal terminal = new Terminal(sizes[0], sizes[1]);
      LiveView view = twoJobsRunning(terminal, 4);
      view.printLine("before the resize");
      terminal.resize(sizes[2], sizes[3]);
      view.printLine("between the resize and its tick");
      view.jobStarted(item("WRK-3", Priority.MEDIUM, ItemStatus.IN_PROGRESS, "design"), "design", 1);
      view.tick();
      Vt100Screen screen = terminal.screen();
      String all = String.join("\n", screen.everything());
      assertEquals(1, count(screen.everything(), "orchestrate run · "), "one area, no stale copy:\n" + all);
      assertEquals(3, count(area(screen), "▶ "), all);
      assertEquals(1, count(screen.everything(), "between the resize and its tick"), all);
      assertEquals(3, count(screen.everything(), "design (attempt 1) started"), "every line survives:\n" + all);
      assertEquals(2 + 3 + LiveStatus.FINISHED_SHOWN, area(screen).size(), "the area sits at the bottom:\n" + all);
    }
  }

  @Test
  void a_run_that_ends_between_a_resize_and_its_tick_leaves_no_area_behind() {
    for (int[] sizes : RESIZES) {
      Terminal terminal = new Terminal(sizes[0], sizes[1]);
      LiveView view = twoJobsRunning(terminal, 3);
      terminal.resize(sizes[2], sizes[3]);
      view.close();
      Vt100Screen screen = terminal.screen();
      String all = String.join("\n", screen.everything());
      assertEquals(0, count(screen.everything(), "orchestrate run · "), "the area is gone:\n" + all);
      assertEquals(2, count(screen.everything(), "design (attempt 1) started"), "the lines stay:\n" + all);
    }
  }

  @Test
  void the_header_says_loading_until_the_run_starts_then_counts_the_items_the_run_works_on() {
    Terminal terminal = new Terminal(20, 100);
    List<ItemState> items = List.of(item("H1", Priority.HIGH, ItemStatus.DONE, null),
        item("H2", Priority.HIGH, ItemStatus.NEW, null), item("M1", Priority.MEDIUM, ItemStatus.NEW, null));
    LiveView view = view(terminal, List.of(), 1, false);
    assertEquals("orchestrate run · loading the backlog", area(terminal.screen()).get(0));

    view.runStarted(items, ItemFilter.parse(List.of("priority=high"), List.of()).asOfRunStart(items));
    assertTrue(area(terminal.screen()).get(0).startsWith("orchestrate run · 1/2 done · "),
        area(terminal.screen()).get(0));

    Terminal other = new Terminal(20, 100);
    LiveView targeted = view(other, items, 1, false);
    targeted.runStarted(items, ItemFilter.parse(List.of(), List.of("M1")).asOfRunStart(items));
    assertTrue(area(other.screen()).get(0).startsWith("orchestrate run · 0/1 done · "), area(other.screen()).get(0));
  }

  @Test
  void the_eta_appears_once_a_job_has_finished_and_counts_down() {
    Terminal terminal = new Terminal(20, 100);
    List<ItemState> items = List.of(item("A", Priority.MEDIUM, ItemStatus.NEW, null),
        item("B", Priority.MEDIUM, ItemStatus.NEW, null));
    LiveView view = view(terminal, items, 1, false);
    view.runStarted(items, ItemFilter.ALL);
    assertFalse(area(terminal.screen()).get(0).contains("ETA"), "no estimate without a finished job");

    ItemState a = items.get(0);
    ItemState scoping = a.with(new Progress(ItemStatus.SCOPING, "scope", 0, null, null, null, null, null));
    view.jobStarted(scoping, "scope", 1);
    clock.now = clock.now.plusSeconds(10);
    ItemState ready = a.with(new Progress(ItemStatus.READY, null, 0, null, null, null, null, null));
    view.jobFinished(scoping, ready, Fixtures.outcome(AgentResult.PHASE_COMPLETE, "scoped", ""));
    // 7 phases left (A: 3, B: 1 + 3), 10 s each, one at a time: 70 s.
    assertTrue(area(terminal.screen()).get(0).endsWith(" · ETA 1:10"), area(terminal.screen()).get(0));
    clock.now = clock.now.plusSeconds(5);
    view.tick();
    assertTrue(area(terminal.screen()).get(0).endsWith(" · ETA 1:05"), area(terminal.screen()).get(0));
  }

  @Test
  void a_pause_shows_with_its_end_and_countdown_and_the_eta_waits_for_it_instead_of_counting_down() {
    Terminal terminal = new Terminal(20, 120);
    List<ItemState> items = List.of(item("A", Priority.MEDIUM, ItemStatus.NEW, null),
        item("B", Priority.MEDIUM, ItemStatus.NEW, null));
    LiveView view = view(terminal, items, 1, false);
    view.runStarted(items, ItemFilter.ALL);
    ItemState a = items.get(0);
    ItemState scoping = a.with(new Progress(ItemStatus.SCOPING, "scope", 0, null, null, null, null, null));
    view.jobStarted(scoping, "scope", 1);
    clock.now = clock.now.plusSeconds(10);
    ItemState ready = a.with(new Progress(ItemStatus.READY, null, 0, null, null, null, null, null));
    view.jobFinished(scoping, ready, Fixtures.outcome(AgentResult.PHASE_COMPLETE, "scoped", ""));
    // 7 phases left, 10 s each: 70 s. Then the next attempt is refused by the usage limit.
    ItemState b = items.get(1).with(new Progress(ItemStatus.SCOPING, "scope", 0, null, null, null, null, null));
    view.jobStarted(b, "scope", 1);
    clock.now = clock.now.plusSeconds(2);
    view.jobFinished(b, b, limited());
    Instant until = clock.now.plusSeconds(60);
    view.providerLimit("claude paused until 10:02 (UTC), usage limit");
    view.profilePaused(new AgentPauses.Pause("claude", OutcomeClass.USAGE_LIMIT, until, "limit", clock.now, 1));

    String pauseRow = "⏸ claude paused until " + RunProgress.TIME.format(until) + " (1:00 left), usage limit";
    List<String> area = area(terminal.screen());
    assertTrue(area.get(0).startsWith("orchestrate run · 0/2 done · 1 phase · "), "the refused one is no phase: "
        + area.get(0));
    assertTrue(area.get(0).endsWith(" · ETA 2:10"), "the pause, then the work: " + area.get(0));
    assertEquals(pauseRow, area.get(2), String.join("\n", area));

    clock.now = clock.now.plusSeconds(30);
    view.tick();
    area = area(terminal.screen());
    assertEquals(pauseRow.replace("1:00 left", "0:30 left"), area.get(2), String.join("\n", area));
    assertTrue(area.get(0).endsWith(" · ETA 1:40"), area.get(0));

    clock.now = clock.now.plusSeconds(31);
    view.tick();
    area = area(terminal.screen());
    assertEquals(0, count(area, "⏸"), "over: gone\n" + String.join("\n", area));
    assertTrue(area.get(0).endsWith(" · ETA 1:10"), "the work left, none of it done meanwhile: " + area.get(0));
    List<String> all = terminal.screen().everything();
    assertEquals(1, count(all, "claude paused until 10:02 (UTC), usage limit"), String.join("\n", all));
  }

  @Test
  void a_fallback_at_work_during_a_pause_is_named_and_the_eta_counts_down() {
    Terminal terminal = new Terminal(20, 120);
    List<ItemState> items = items(3);
    LiveView view = new LiveView(terminal, clock, () -> items, Map.of("feature", FEATURE), 1, false, true);
    view.show();
    view.runStarted(items, ItemFilter.ALL);
    ItemState a = item("WRK-1", Priority.MEDIUM, ItemStatus.IN_PROGRESS, "design");
    view.jobStarted(a, "design", 1, "claude");
    clock.now = clock.now.plusSeconds(10);
    view.jobFinished(a, a.with(new Progress(ItemStatus.IN_PROGRESS, "build", 0, null, null, null, null, null)),
        Fixtures.outcome(AgentResult.PHASE_COMPLETE, "", ""));
    view.profilePaused(new AgentPauses.Pause("claude", OutcomeClass.USAGE_LIMIT, clock.now.plusSeconds(300), "limit",
        clock.now, 1));
    String still = area(terminal.screen()).get(0);
    view.jobStarted(a, "build", 1, "backup");
    String working = area(terminal.screen()).get(0);
    assertTrue(still.endsWith(eta(working, 300)), "nothing runs: the pause's 5 min, then the work: " + still
        + "; a fallback at work: the work alone: " + working);
    clock.now = clock.now.plusSeconds(5);
    view.tick();
    List<String> area = area(terminal.screen());
    assertTrue(area.stream().anyMatch(l -> l.startsWith("▶ WRK-1 build [backup] (attempt 1) 0:05")),
        String.join("\n", area));
    assertTrue(area.stream().anyMatch(l -> l.startsWith("⏸ claude paused until ")), String.join("\n", area));
    assertTrue(area.get(0).endsWith(eta(working, -5)), working + " then " + area.get(0));
    List<String> all = terminal.screen().everything();
    assertTrue(all.stream().anyMatch(l -> l.endsWith(" WRK-1 design [claude]: phase_complete in 10.0s -> build")),
        String.join("\n", all));
  }

  /** The header's ETA moved by {@code seconds}: " · ETA m:ss". */
  private static String eta(String header, int seconds) {
    String[] parts = header.substring(header.lastIndexOf("ETA ") + 4).split(":");
    int s = Integer.parseInt(parts[0]) * 60 + Integer.parseInt(parts[1]) + seconds;
    return " · ETA " + LiveStatus.elapsed(Duration.ofSeconds(s));
  }

  private static AgentOutcome limited() {
    return Fixtures.outcome(AgentResult.FAILED, "", "You've hit your limit").withProvider(
        ProviderFailure.of(OutcomeClass.USAGE_LIMIT, "You've hit your limit · resets 10:02"));
  }

  @Test
  void outcomes_are_coloured_only_when_colour_is_on() {
    for (boolean colour : new boolean[] {true, false}) {
      Terminal terminal = new Terminal(20, 100);
      List<ItemState> items = items(2);
      LiveView view = view(terminal, items, 1, colour);
      view.runStarted(items, ItemFilter.ALL);
      ItemState a = item("WRK-1", Priority.MEDIUM, ItemStatus.IN_PROGRESS, "design");
      view.jobStarted(a, "design", 1);
      view.jobFinished(a, a.with(Progress.blocked(ItemStatus.IN_PROGRESS, "design", "needs a decision")),
          Fixtures.outcome(AgentResult.BLOCKED, "", "needs a decision"));
      String bytes = terminal.bytes.toString();
      assertEquals(colour, bytes.contains("\033[31m"), "red for blocked");
      if (!colour) {
        assertFalse(bytes.matches("(?s).*\033\\[3\\dm.*"), "no colour at all");
      }
    }
  }

  @Test
  void agent_text_cannot_retitle_clear_or_forge_a_line_in_the_live_view() {
    Terminal terminal = new Terminal(30, 200);
    List<ItemState> items = items(2);
    LiveView view = view(terminal, items, 1, true);
    view.runStarted(items, ItemFilter.ALL);
    ItemState a = item("WRK-1", Priority.MEDIUM, ItemStatus.IN_PROGRESS, "design");
    view.jobStarted(a, "design", 1);
    String evil = "boom\033]0;pwned\007\033[2J\r\n10:00:00 WRK-2 review: phase_complete in 1.0s -> done\u202e";
    ItemState failed = a.with(new Progress(ItemStatus.IN_PROGRESS, "design", 1, null, null, evil, null, null));
    view.jobFinished(a, failed, new AgentOutcome(AgentResult.FAILED, evil, evil, List.of(), List.of(),
        OptionalInt.of(1), AgentOutcome.Ending.EXITED, Duration.ofSeconds(1)));
    view.printLine("a notice with " + evil);
    view.tick();

    Vt100Screen screen = terminal.screen();
    assertNull(screen.title(), "the window title is untouched");
    assertEquals(0, screen.bells());
    assertEquals(List.of(), screen.oddities());
    assertTrue(screen.everything().stream().noneMatch(l -> l.startsWith("10:00:00 WRK-2")),
        "no forged progress line:\n" + String.join("\n", screen.everything()));
    assertTrue(screen.everything().stream().anyMatch(l -> l.contains("will retry): boom\\x1b]0;pwned\\x07\\x1b[2J")),
        String.join("\n", screen.everything()));
    String bytes = terminal.bytes.toString();
    assertFalse(bytes.contains("\007"), "no BEL");
    assertFalse(bytes.contains("\r\n10:00:00"), "no forged line");
    assertFalse(bytes.contains("\u202e"), "no bidi override");
    assertFalse(bytes.contains("\033]"), "no OSC");
    assertFalse(bytes.contains("\033[2J"), "no clear screen");
  }

  @Test
  void log_lines_written_to_stderr_during_the_view_go_above_the_area_until_it_closes() {
    Terminal terminal = new Terminal(20, 100);
    List<ItemState> items = items(2);
    java.io.PrintStream before = System.err;
    LiveView view = view(terminal, items, 1, false);
    try {
      view.runStarted(items, ItemFilter.ALL);
      view.routeSystemErr();
      System.err.println("12:00:00.000 WARN  Something: a log line");
      System.err.print("half a line");
    } finally {
      view.close();
    }
    assertEquals(before, System.err, "stderr is given back");
    List<String> all = terminal.screen().everything();
    assertEquals(1, count(all, "WARN  Something: a log line"), String.join("\n", all));
    assertEquals(1, count(all, "half a line"), String.join("\n", all));
    assertEquals(0, count(all, "orchestrate run · "), "the area is gone after close");
  }
}
