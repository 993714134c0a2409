package dev.orchestrate.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** An aligned text table for human output. The last column is never padded. */
final class Table {
  private final List<String[]> rows = new ArrayList<>();

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

  void print(PrintWriter out) {
    int cols = rows.get(0).length;
    int[] width = new int[cols];
    for (String[] row : rows) {
      for (int i = 0; i < cols; i++) {
        width[i] = Math.max(width[i], row[i].length());
      }
    }
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < cols; i++) {
        line.append(i < cols - 1 ? String.format("%-" + width[i] + "s  ", row[i]) : row[i]);
      }
      out.println(line.toString().stripTrailing());
    }
  }
}
