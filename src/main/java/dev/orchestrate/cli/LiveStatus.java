package dev.orchestrate.cli;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The live view's status area as plain strings: a pure function of the run's counts, the active
 * jobs and the last finished ones, so it is tested without a terminal. No jline here.
 */
record LiveStatus(int done, int total, int blocked, int phasesRun, List<ActiveJob> active, List<String> lastFinished) {
  /** How many finished jobs the status area keeps. */
  static final int FINISHED_SHOWN = 3;

  LiveStatus {
    active = List.copyOf(active);
    lastFinished = List.copyOf(lastFinished);
    if (lastFinished.size() > FINISHED_SHOWN) {
      throw new IllegalArgumentException("at most " + FINISHED_SHOWN + " finished jobs, got " + lastFinished.size());
    }
  }

  /** A job being worked on; several may run at once, one per item. */
  record ActiveJob(String itemId, String phase, int attempt, Instant started) {
    ActiveJob {
      Objects.requireNonNull(itemId, "itemId");
      Objects.requireNonNull(phase, "phase");
      Objects.requireNonNull(started, "started");
    }
  }

  /**
   * The status lines at {@code now}, each cut to fit {@code width} columns (a line that wraps
   * would push the area up); {@code width <= 0} means unknown, no cut. The area keeps its height
   * between jobs (one line per active job but at least one, always {@link #FINISHED_SHOWN}
   * finished lines, blank until filled) so the text above it does not jump.
   */
  List<String> lines(Instant now, int width) {
    List<String> lines = new ArrayList<>();
    StringBuilder head = new StringBuilder("orchestrate run · ").append(done).append('/').append(total).append(" done");
    if (blocked > 0) {
      head.append(" · ").append(blocked).append(" blocked");
    }
    head.append(" · phase ").append(phasesRun);
    lines.add(head.toString());
    for (ActiveJob job : active) {
      lines.add("▶ " + job.itemId() + " " + job.phase() + " (attempt " + job.attempt() + ") "
          + elapsed(Duration.between(job.started(), now)));
    }
    if (active.isEmpty()) {
      lines.add("");
    }
    for (int i = 0; i < FINISHED_SHOWN; i++) {
      lines.add(i < lastFinished.size() ? "  " + lastFinished.get(i) : "");
    }
    return lines.stream().map(line -> fit(line, width)).toList();
  }

  /** {@code 0:41}, {@code 12:05}, {@code 1:02:03}; negative durations (clock skew) show as 0:00. */
  static String elapsed(Duration d) {
    long s = Math.max(0, d.getSeconds());
    if (s >= 3600) {
      return String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
    }
    return String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
  }

  /** Cuts to {@code width - 1} columns (the last column would make some terminals wrap), ending in "…". */
  static String fit(String line, int width) {
    if (width <= 0) {
      return line;
    }
    int max = Math.max(1, width - 1);
    if (line.codePointCount(0, line.length()) <= max) {
      return line;
    }
    int end = line.offsetByCodePoints(0, max - 1);
    return line.substring(0, end) + "…";
  }
}
