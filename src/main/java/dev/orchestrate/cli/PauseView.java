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
      if (!p.activeAt(now)) {
        continue;
      }
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("profile", p.profile());
      row.put("kind", p.kind().key());
      row.put("until", Json.timestamp(p.until()));
      row.put("since", Json.timestamp(p.since()));
      row.put("strikes", p.strikes());
      row.put("message", p.message());
      rows.add(row);
    }
    return rows;
  }

  /** One line per pause in force: "claude paused until 03:00 (Europe/Lisbon), usage limit: …". */
  static void print(java.io.PrintWriter out, List<AgentPauses.Pause> pauses, Instant now, ZoneId zone) {
    for (AgentPauses.Pause p : pauses) {
      if (!p.activeAt(now)) {
        continue;
      }
      String until = p.until() == null ? "until its reset (not said; the run halted)"
          : "until " + p.until().atZone(zone).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm", Locale.ROOT))
              + " (" + zone.getId() + ")";
      out.println(p.profile() + " paused " + until + ", " + p.kind().key().replace('_', ' ')
          + (p.message().isBlank() ? "" : ": " + TerminalText.safe(oneLine(p.message()))));
    }
  }

  private static String oneLine(String text) {
    String line = text.strip().lines().findFirst().orElse("");
    return line.length() > 200 ? line.substring(0, 199) + "…" : line;
  }
}
