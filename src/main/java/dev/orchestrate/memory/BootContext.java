package dev.orchestrate.memory;

import java.util.ArrayList;
import java.util.List;

/**
 * The project memory section of every prompt (docs/agents.md), chosen purely: every active
 * load-bearing item first (insertion order), then the most recent episodic ones (newest first),
 * while they fit in the character budget. When load-bearing items alone do not fit, the text
 * says how many were left out.
 */
final class BootContext {
  private BootContext() {
  }

  /** The section's text, or null when there is nothing to say. */
  static String render(List<MemoryItem> loadBearing, List<MemoryItem> recentEpisodes, int budgetChars) {
    StringBuilder out = new StringBuilder();
    int leftOutLoadBearing = 0;
    for (MemoryItem item : loadBearing) {
      String line = line(item);
      if (out.length() + line.length() <= budgetChars) {
        out.append(line);
      } else {
        leftOutLoadBearing++;
      }
    }
    List<String> episodes = new ArrayList<>();
    int used = out.length();
    for (MemoryItem item : recentEpisodes) {
      String line = line(item);
      if (leftOutLoadBearing > 0 || used + line.length() > budgetChars) {
        break;
      }
      episodes.add(line);
      used += line.length();
    }
    // newest first was for choosing; chronological reads better
    for (int i = episodes.size() - 1; i >= 0; i--) {
      out.append(episodes.get(i));
    }
    if (leftOutLoadBearing > 0) {
      out.append("\n(").append(leftOutLoadBearing).append(" more load-bearing ")
          .append(leftOutLoadBearing == 1 ? "memory was" : "memories were")
          .append(" left out: over the budget of ").append(budgetChars)
          .append(" characters; see `orchestrate memory list`)\n");
    }
    return out.length() == 0 ? null : out.toString();
  }

  static String line(MemoryItem item) {
    StringBuilder line = new StringBuilder("- [").append(item.kind().key());
    for (String tag : item.tags()) {
      line.append(", ").append(tag);
    }
    line.append("] ");
    if (!item.title().isBlank()) {
      line.append(item.title().strip()).append(": ");
    }
    line.append(item.content().strip().replaceAll("\\s*\\R\\s*", " ")).append('\n');
    return line.toString();
  }
}
