package dev.orchestrate.cli.live;

import dev.orchestrate.item.AgentPauses;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The live view's status area as lines: a pure function of the run's counts, the active jobs and
 * the last finished ones, so it is tested without a terminal. No jline here.
 *
 * <pre>
 * orchestrate run · 3/8 done · 1 blocked · 12 phases · 2:31 elapsed · ETA 4:10
 * ████████████░░░░░░░░░░░░░░░░░░ 50%
 * ⏸ claude paused until 10:04:31 (1:52 left), usage limit
 * ▶ WRK-004 fix [backup] (attempt 2) 0:07
 *   WRK-003 review: phase_complete in 2.0s -> done
 * </pre>
 * Every piece of text is made safe for the terminal here ({@link TerminalText}); colour (SGR) is
 * added only when {@code colour} is set, after the line is cut to the width.
 *
 * @param started     when the run started, or null while the backlog is being loaded (no counts yet)
 * @param total       the items the run works on (see {@link LiveView})
 * @param eta         when the run is expected to end, or null while there is no estimate
 * @param activeRows  rows kept for active jobs (the most that ran at once), so the area keeps its height
 * @param awaitingReview items waiting for a human's approve or reject
 * @param awaitingChecks items waiting for their CI checks (execution.checks)
 * @param landing     items in the merge queue, waiting for their work to land
 * @param paused      the agent profiles paused by a provider's limit now, each shown on a row of its
 *                    own above the active jobs (in the rows kept for them), with its end to the
 *                    second and the time left
 */
record LiveStatus(Instant started, int done, int total, int blocked, int phasesRun, Instant eta,
    List<ActiveJob> active, int activeRows, List<Finished> lastFinished, boolean colour, int awaitingReview,
    int awaitingChecks, int landing, List<AgentPauses.Pause> paused) {
  LiveStatus(Instant started, int done, int total, int blocked, int phasesRun, Instant eta, List<ActiveJob> active,
      int activeRows, List<Finished> lastFinished, boolean colour, int awaitingReview, int awaitingChecks) {
    this(started, done, total, blocked, phasesRun, eta, active, activeRows, lastFinished, colour, awaitingReview,
        awaitingChecks, 0, List.of());
  }

  /** How many finished jobs the status area keeps. */
  static final int FINISHED_SHOWN = 3;
  /** Columns of the progress bar at most. */
  static final int BAR_WIDTH = 30;

  static final String GREEN = "32";
  static final String RED = "31";
  static final String YELLOW = "33";

  /** A status with no item waiting for a human or for its checks. */
  LiveStatus(Instant started, int done, int total, int blocked, int phasesRun, Instant eta, List<ActiveJob> active,
      int activeRows, List<Finished> lastFinished, boolean colour) {
    this(started, done, total, blocked, phasesRun, eta, active, activeRows, lastFinished, colour, 0, 0);
  }

  LiveStatus {
    active = List.copyOf(active);
    paused = List.copyOf(paused);
    lastFinished = List.copyOf(lastFinished);
    if (lastFinished.size() > FINISHED_SHOWN) {
      throw new IllegalArgumentException("at most " + FINISHED_SHOWN + " finished jobs, got " + lastFinished.size());
    }
  }

  /**
   * A job being worked on; several may run at once, one per item. {@code tag} names its agent
   * profile ({@code " [backup]"}), or is empty when profiles are not named.
   */
  record ActiveJob(String itemId, String phase, int attempt, Instant started, String tag) {
    ActiveJob {
      Objects.requireNonNull(itemId, "itemId");
      Objects.requireNonNull(phase, "phase");
      Objects.requireNonNull(started, "started");
      tag = tag == null ? "" : tag;
    }

    ActiveJob(String itemId, String phase, int attempt, Instant started) {
      this(itemId, phase, attempt, started, "");
    }
  }

  /** How a finished job went, for its colour. */
  enum Tone {
    /** The phase or the item is done. */
    GOOD(GREEN),
    /** The item is blocked. */
    BAD(RED),
    /** Another attempt follows, or the job was cut short. */
    RETRY(YELLOW),
    /** Neither (a subphase, say). */
    PLAIN(null);

    final String sgr;

    Tone(String sgr) {
      this.sgr = sgr;
    }
  }

  /** A finished job's line (raw text, made safe when shown) and its tone. */
  record Finished(String text, Tone tone) {
    Finished {
      Objects.requireNonNull(text, "text");
      Objects.requireNonNull(tone, "tone");
    }
  }

  /**
   * The area's lines at {@code now}, each cut to fit {@code width} columns (a line that wraps
   * would push the area up; {@code width <= 0} means no cut), at most {@code maxLines} of them
   * (the finished lines go first, then the active jobs fold into one "… more" line). Below that,
   * the area keeps its height between jobs: one row per active job up to {@code activeRows} (at
   * least one), always {@link #FINISHED_SHOWN} finished rows, blank until filled.
   */
  List<LiveArea.Line> lines(Instant now, int width, int maxLines) {
    List<List<Seg>> rows = new ArrayList<>();
    rows.add(header(now));
    if (started != null) {
      rows.add(bar(width));
    }
    int fixed = rows.size();
    int busy = paused.size() + active.size();
    int activeShown = Math.max(Math.max(1, activeRows), busy);
    int finishedShown = FINISHED_SHOWN;
    int room = Math.max(1, maxLines - fixed);
    if (activeShown + finishedShown > room) {
      finishedShown = Math.max(0, room - activeShown);
      activeShown = Math.min(activeShown, room - finishedShown);
    }
    boolean folded = busy > activeShown;
    for (int i = 0; i < activeShown; i++) {
      if (folded && i == activeShown - 1) {
        rows.add(List.of(new Seg("▶ … and " + (busy - i) + " more", null)));
      } else if (i < paused.size()) {
        rows.add(List.of(new Seg(pauseRow(paused.get(i), now), YELLOW)));
      } else if (i < busy) {
        ActiveJob job = active.get(i - paused.size());
        rows.add(List.of(new Seg("▶ " + job.itemId() + " " + job.phase() + job.tag() + " (attempt " + job.attempt()
            + ") " + elapsed(Duration.between(job.started(), now)), null)));
      } else {
        rows.add(List.of());
      }
    }
    for (int i = 0; i < finishedShown; i++) {
      if (i < lastFinished.size()) {
        Finished f = lastFinished.get(i);
        rows.add(List.of(new Seg("  " + f.text(), f.tone().sgr)));
      } else {
        rows.add(List.of());
      }
    }
    List<LiveArea.Line> out = new ArrayList<>();
    for (List<Seg> row : rows.subList(0, Math.min(rows.size(), Math.max(1, maxLines)))) {
      out.add(render(row, width));
    }
    return out;
  }

  private List<Seg> header(Instant now) {
    List<Seg> head = new ArrayList<>();
    if (started == null) {
      head.add(new Seg("orchestrate run · loading the backlog", null));
      return head;
    }
    head.add(new Seg("orchestrate run · ", null));
    head.add(new Seg(done + "/" + total + " done", done > 0 ? GREEN : null));
    if (blocked > 0) {
      head.add(new Seg(" · ", null));
      head.add(new Seg(blocked + " blocked", RED));
    }
    if (landing > 0) {
      head.add(new Seg(" · ", null));
      head.add(new Seg(landing + " landing", YELLOW));
    }
    if (awaitingChecks > 0) {
      head.add(new Seg(" · ", null));
      head.add(new Seg(awaitingChecks + " awaiting checks", YELLOW));
    }
    if (awaitingReview > 0) {
      head.add(new Seg(" · ", null));
      head.add(new Seg(awaitingReview + " awaiting review", YELLOW));
    }
    StringBuilder rest = new StringBuilder(" · ").append(phasesRun).append(phasesRun == 1 ? " phase" : " phases")
        .append(" · ").append(elapsed(Duration.between(started, now))).append(" elapsed");
    if (eta != null) {
      rest.append(" · ETA ").append(elapsed(Duration.between(now, eta)));
    }
    head.add(new Seg(rest.toString(), null));
    return head;
  }

  /** {@code ⏸ claude paused until 10:04:31 (1:52 left), usage limit}. */
  private static String pauseRow(AgentPauses.Pause pause, Instant now) {
    String until = pause.until() == null ? ""
        : " until " + RunProgress.TIME.format(pause.until()) + " (" + elapsed(Duration.between(now, pause.until()))
            + " left)";
    return "⏸ " + pause.profile() + " paused" + until + ", " + pause.kind().key().replace('_', ' ');
  }

  private List<Seg> bar(int width) {
    int cells = width <= 0 ? BAR_WIDTH : Math.max(5, Math.min(BAR_WIDTH, width - 8));
    int finished = done + blocked;
    int percent = total == 0 ? 0 : (int) Math.min(100, (long) finished * 100 / total);
    int filled = total == 0 ? 0 : (int) Math.min(cells, (long) done * cells / total);
    int red = total == 0 ? 0 : (int) Math.min(cells - filled, (long) blocked * cells / total);
    List<Seg> bar = new ArrayList<>();
    bar.add(new Seg("█".repeat(filled), GREEN));
    bar.add(new Seg("█".repeat(red), RED));
    bar.add(new Seg("░".repeat(cells - filled - red), null));
    bar.add(new Seg(" " + percent + "%", null));
    return bar;
  }

  /** The row cut to {@code width - 1} columns (ending in "…" when cut), with colour if asked. */
  private LiveArea.Line render(List<Seg> row, int width) {
    int max = width <= 0 ? Integer.MAX_VALUE : Math.max(1, width - 1);
    int total = 0;
    for (Seg seg : row) {
      total += columns(TerminalText.safe(seg.text()));
    }
    boolean cut = total > max;
    int budget = cut ? max - 1 : max;
    StringBuilder text = new StringBuilder();
    int used = 0;
    for (Seg seg : row) {
      String safe = TerminalText.safe(seg.text());
      StringBuilder part = new StringBuilder();
      for (int i = 0; i < safe.length() && used < budget;) {
        int cp = safe.codePointAt(i);
        int w = columns(cp);
        if (used + w > budget) {
          used = budget;
          break;
        }
        part.appendCodePoint(cp);
        used += w;
        i += Character.charCount(cp);
      }
      if (part.length() == 0) {
        continue;
      }
      if (colour && seg.sgr() != null) {
        text.append(LiveArea.ESC).append('[').append(seg.sgr()).append('m').append(part)
            .append(LiveArea.ESC).append("[0m");
      } else {
        text.append(part);
      }
    }
    if (cut) {
      text.append('…');
      used++;
    }
    return new LiveArea.Line(text.toString(), Math.min(used, max));
  }

  /** {@code 0:41}, {@code 12:05}, {@code 1:02:03}; negative durations (clock skew) show as 0:00. */
  static String elapsed(Duration d) {
    long s = Math.max(0, d.getSeconds());
    if (s >= 3600) {
      return String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
    }
    return String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
  }

  /** Columns {@code text} takes on a terminal (roughly: wide East Asian characters take two). */
  static int columns(String text) {
    int n = 0;
    for (int i = 0; i < text.length();) {
      int cp = text.codePointAt(i);
      n += columns(cp);
      i += Character.charCount(cp);
    }
    return n;
  }

  private static int columns(int cp) {
    if (cp >= 0x0300 && cp <= 0x036f || cp == 0x200b || cp >= 0xfe00 && cp <= 0xfe0f) {
      return 0;
    }
    boolean wide = cp >= 0x1100 && cp <= 0x115f || cp >= 0x2e80 && cp <= 0xa4cf || cp >= 0xac00 && cp <= 0xd7a3
        || cp >= 0xf900 && cp <= 0xfaff || cp >= 0xfe30 && cp <= 0xfe4f || cp >= 0xff00 && cp <= 0xff60
        || cp >= 0xffe0 && cp <= 0xffe6 || cp >= 0x1f300 && cp <= 0x1faff || cp >= 0x20000 && cp <= 0x3fffd;
    return wide ? 2 : 1;
  }

  /** {@code line} cut to {@code width - 1} columns, ending in "…"; for plain strings. */
  static String fit(String line, int width) {
    return new LiveStatus(null, 0, 0, 0, 0, null, List.of(), 0, List.of(), false)
        .render(List.of(new Seg(line, null)), width).text();
  }

  private record Seg(String text, String sgr) {
  }
}
