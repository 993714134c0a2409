package dev.orchestrate.cli;

import dev.orchestrate.cli.live.TerminalText;
import dev.orchestrate.item.AgentPauses;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The agent profiles a provider's limit paused, as {@code status} and {@code stats} show them. */
final class PauseView {
  private PauseView() {
  }

  /** The pauses still in force at {@code now}, for {@code agent_pauses} in --json (documented in docs/cli.md). */
  static List<Map<String, Object>> json(List<AgentPauses.Pause> pauses, Instant now) {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (AgentPauses.Pause p : pauses) {
      if (p.activeAt(now)) {
        rows.add(json(p));
      }
    }
    return rows;
  }

  /** One pause, as {@code agent_pauses} and {@code agents --json} show it. */
  static Map<String, Object> json(AgentPauses.Pause p) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("profile", p.profile());
    row.put("kind", p.kind().key());
    row.put("until", Json.timestamp(p.until()));
    row.put("since", Json.timestamp(p.since()));
    row.put("strikes", p.strikes());
    row.put("message", p.message());
    return row;
  }

  /** One line per pause in force: "claude paused until 03:00 (Europe/Lisbon), usage limit: …". */
  static void print(java.io.PrintWriter out, List<AgentPauses.Pause> pauses, Instant now, ZoneId zone) {
    for (AgentPauses.Pause p : pauses) {
      if (!p.activeAt(now)) {
        continue;
      }
      out.println(p.profile() + " paused " + until(p, zone) + ", " + kind(p)
          + (p.message().isBlank() ? "" : ": " + TerminalText.safe(oneLine(p.message()))));
    }
  }

  /** "until 2026-11-27 03:00 (Europe/Lisbon)". */
  static String until(AgentPauses.Pause p, ZoneId zone) {
    return p.until() == null ? "until its reset (not said; the run halted)" : "until " + at(p.until(), zone);
  }

  /** "2026-11-27 03:00 (Europe/Lisbon)". */
  static String at(Instant at, ZoneId zone) {
    return at.atZone(zone).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm", Locale.ROOT)) + " (" + zone.getId()
        + ")";
  }

  /** "usage limit", "rate limited". */
  static String kind(AgentPauses.Pause p) {
    return p.kind().key().replace('_', ' ');
  }

  /** The first line of what the agent CLI said, at most 200 characters. */
  static String oneLine(String text) {
    String line = text.strip().lines().findFirst().orElse("");
    return line.length() > 200 ? line.substring(0, 199) + "…" : line;
  }
}
