package dev.orchestrate.cli;

import dev.orchestrate.cli.live.TerminalText;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** An aligned text table for human output. The last column is never padded. */
final class Table {
  private final List<String[]> rows = new ArrayList<>();
  /** Lines printed under a row, by its index, indented and not aligned with the columns. */
  private final Map<Integer, List<String>> notes = new HashMap<>();

  Table(String... header) {
    rows.add(header);
  }

  /** A row; each cell is shown through {@link TerminalText#safe} (stored text is untrusted). */
  void add(String... cells) {
    String[] safe = new String[cells.length];
    for (int i = 0; i < cells.length; i++) {
      safe[i] = TerminalText.safe(cells[i]);
    }
    rows.add(safe);
  }

  /** A line under the last row added (indented, not part of the columns), through {@link TerminalText#safe}. */
  void note(String line) {
    notes.computeIfAbsent(rows.size() - 1, i -> new ArrayList<>()).add("  " + TerminalText.safe(line));
  }

  void print(PrintWriter out) {
    int cols = rows.get(0).length;
    int[] width = new int[cols];
    for (String[] row : rows) {
      for (int i = 0; i < cols; i++) {
        width[i] = Math.max(width[i], row[i].length());
      }
    }
    for (int r = 0; r < rows.size(); r++) {
      String[] row = rows.get(r);
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < cols; i++) {
        line.append(i < cols - 1 ? String.format("%-" + width[i] + "s  ", row[i]) : row[i]);
      }
      out.println(line.toString().stripTrailing());
      notes.getOrDefault(r, List.of()).forEach(out::println);
    }
  }
}
