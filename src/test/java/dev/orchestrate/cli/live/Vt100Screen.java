package dev.orchestrate.cli.live;

import java.util.ArrayList;
import java.util.List;

/**
 * A small VT100/xterm screen model for tests: fed the exact bytes a renderer writes, it keeps the
 * visible rows and the scrollback, as a terminal would. It knows what the live view emits and a
 * little more: printable text with autowrap (and xterm's pending wrap in the last column), CR,
 * LF (scrolling the scroll region; only a whole-screen scroll keeps the top row in the scrollback,
 * as tmux and xterm do), BS, TAB, CUP, cursor up/down/forward/back, EL, ED, DECSTBM, DECSC/DECRC
 * (ESC 7/8), RI (ESC M), SGR and private modes (ignored), OSC up to BEL or ST (recorded as a
 * title). Any other control character is recorded in {@link #oddities()}, so a test sees it.
 */
final class Vt100Screen {
  private int rows;
  private int columns;
  private int[][] cells;
  private final List<String> scrollback = new ArrayList<>();
  private final List<String> oddities = new ArrayList<>();
  private int row;
  private int column;
  private boolean pendingWrap;
  private int top;
  private int bottom;
  private int savedRow;
  private int savedColumn;
  private String title;
  private int bells;

  Vt100Screen(int rows, int columns) {
    this.rows = rows;
    this.columns = columns;
    this.cells = blank(rows, columns);
    this.bottom = rows - 1;
  }

  private static int[][] blank(int rows, int columns) {
    int[][] c = new int[rows][columns];
    for (int[] r : c) {
      java.util.Arrays.fill(r, ' ');
    }
    return c;
  }

  /** Feeds bytes as written (already decoded text). */
  Vt100Screen feed(String text) {
    int i = 0;
    while (i < text.length()) {
      int cp = text.codePointAt(i);
      i += Character.charCount(cp);
      if (cp == 0x1b) {
        i = escape(text, i);
      } else if (cp == '\r') {
        column = 0;
        pendingWrap = false;
      } else if (cp == '\n') {
        lineFeed();
      } else if (cp == '\b') {
        column = Math.max(0, column - 1);
        pendingWrap = false;
      } else if (cp == '\t') {
        column = Math.min(columns - 1, (column / 8 + 1) * 8);
      } else if (cp == 0x07) {
        bells++;
      } else if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f)) {
        oddities.add(String.format("U+%04X", cp));
      } else {
        print(cp);
      }
    }
    return this;
  }

  private void print(int cp) {
    if (pendingWrap) {
      column = 0;
      lineFeed();
      pendingWrap = false;
    }
    cells[row][column] = cp;
    if (column == columns - 1) {
      pendingWrap = true;
    } else {
      column++;
    }
  }

  private void lineFeed() {
    pendingWrap = false;
    if (row == bottom) {
      scrollUp();
    } else if (row < rows - 1) {
      row++;
    }
  }

  private void scrollUp() {
    if (top == 0 && bottom == rows - 1) {
      scrollback.add(text(cells[0]));
    }
    for (int r = top; r < bottom; r++) {
      cells[r] = cells[r + 1];
    }
    cells[bottom] = blank(1, columns)[0];
  }

  private void scrollDown() {
    for (int r = bottom; r > top; r--) {
      cells[r] = cells[r - 1];
    }
    cells[top] = blank(1, columns)[0];
  }

  private int escape(String text, int i) {
    if (i >= text.length()) {
      oddities.add("lone ESC");
      return i;
    }
    char c = text.charAt(i);
    if (c == '[') {
      return csi(text, i + 1);
    }
    if (c == ']') {
      int end = i + 1;
      StringBuilder osc = new StringBuilder();
      while (end < text.length() && text.charAt(end) != 0x07
          && !(text.charAt(end) == 0x1b && end + 1 < text.length() && text.charAt(end + 1) == '\\')) {
        osc.append(text.charAt(end++));
      }
      title = osc.toString();
      return end < text.length() && text.charAt(end) == 0x07 ? end + 1 : end + 2;
    }
    if (c == '7') {
      savedRow = row;
      savedColumn = column;
    } else if (c == '8') {
      row = savedRow;
      column = savedColumn;
      pendingWrap = false;
    } else if (c == 'M') {
      if (row == top) {
        scrollDown();
      } else if (row > 0) {
        row--;
      }
    } else {
      oddities.add("ESC " + c);
    }
    return i + 1;
  }

  private int csi(String text, int i) {
    StringBuilder params = new StringBuilder();
    boolean priv = false;
    while (i < text.length()) {
      char c = text.charAt(i++);
      if (c == '?') {
        priv = true;
      } else if ((c >= '0' && c <= '9') || c == ';') {
        params.append(c);
      } else {
        apply(c, priv, params.toString());
        return i;
      }
    }
    oddities.add("unterminated CSI");
    return i;
  }

  private void apply(char command, boolean priv, String params) {
    String[] p = params.isEmpty() ? new String[0] : params.split(";", -1);
    int a = p.length > 0 && !p[0].isEmpty() ? Integer.parseInt(p[0]) : 0;
    int b = p.length > 1 && !p[1].isEmpty() ? Integer.parseInt(p[1]) : 0;
    if (priv) {
      return; // cursor visibility and the like: not drawn
    }
    pendingWrap = false;
    switch (command) {
      case 'H', 'f' -> {
        row = clamp(Math.max(1, a) - 1, rows);
        column = clamp(Math.max(1, b) - 1, columns);
      }
      case 'A' -> row = Math.max(row >= top ? top : 0, row - Math.max(1, a));
      case 'B' -> row = Math.min(row <= bottom ? bottom : rows - 1, row + Math.max(1, a));
      case 'C' -> column = Math.min(columns - 1, column + Math.max(1, a));
      case 'D' -> column = Math.max(0, column - Math.max(1, a));
      case 'G' -> column = clamp(Math.max(1, a) - 1, columns);
      case 'K' -> eraseLine(a);
      case 'J' -> eraseScreen(a);
      case 'r' -> {
        top = a == 0 ? 0 : a - 1;
        bottom = b == 0 ? rows - 1 : Math.min(rows - 1, b - 1);
        row = 0;
        column = 0;
      }
      case 'm' -> {
        // colours are not drawn
      }
      default -> oddities.add("CSI " + params + command);
    }
  }

  private static int clamp(int v, int n) {
    return Math.max(0, Math.min(n - 1, v));
  }

  private void eraseLine(int mode) {
    int from = mode == 0 ? column : 0;
    int to = mode == 1 ? column : columns - 1;
    for (int c = from; c <= to; c++) {
      cells[row][c] = ' ';
    }
  }

  private void eraseScreen(int mode) {
    if (mode == 0) {
      eraseLine(0);
      for (int r = row + 1; r < rows; r++) {
        cells[r] = blank(1, columns)[0];
      }
    } else if (mode == 1) {
      eraseLine(1);
      for (int r = 0; r < row; r++) {
        cells[r] = blank(1, columns)[0];
      }
    } else {
      cells = blank(rows, columns);
    }
  }

  /**
   * A new size as tmux 3.3 handles it (checked by hand against tmux): rows longer than a
   * narrower width are rewrapped into several; when there are more rows than fit, blank rows
   * below the cursor go first, then the top rows go to the scrollback (the bottom stays where it
   * is); when rows are missing, the scrollback's last rows come back at the top, or blank rows
   * are added at the bottom. Rows are not joined again when the width grows. The scroll region
   * is reset.
   */
  Vt100Screen resize(int newRows, int newColumns) {
    List<String> lines = new ArrayList<>();
    int cursorLine = 0;
    for (int r = 0; r < rows; r++) {
      String text = text(cells[r]);
      int[] cps = text.codePoints().toArray();
      if (cps.length <= newColumns) {
        lines.add(text);
      } else {
        for (int from = 0; from < cps.length; from += newColumns) {
          lines.add(new String(cps, from, Math.min(newColumns, cps.length - from)));
        }
      }
      if (r == row) {
        cursorLine = lines.size() - 1;
      }
    }
    while (lines.size() > newRows && lines.size() - 1 > cursorLine && lines.get(lines.size() - 1).isEmpty()) {
      lines.remove(lines.size() - 1);
    }
    while (lines.size() > newRows) {
      scrollback.add(lines.remove(0));
      cursorLine--;
    }
    while (lines.size() < newRows) {
      if (!scrollback.isEmpty()) {
        lines.add(0, scrollback.remove(scrollback.size() - 1));
        cursorLine++;
      } else {
        lines.add("");
      }
    }
    int[][] next = blank(newRows, newColumns);
    for (int r = 0; r < newRows; r++) {
      int[] cps = lines.get(r).codePoints().toArray();
      System.arraycopy(cps, 0, next[r], 0, Math.min(cps.length, newColumns));
    }
    rows = newRows;
    columns = newColumns;
    cells = next;
    top = 0;
    bottom = rows - 1;
    row = clamp(cursorLine, rows);
    column = clamp(column, columns);
    pendingWrap = false;
    return this;
  }

  /** The visible rows, trailing blanks cut. */
  List<String> lines() {
    List<String> out = new ArrayList<>();
    for (int[] r : cells) {
      out.add(text(r));
    }
    return out;
  }

  /** The scrollback, oldest first, then the visible rows: everything a person could scroll through. */
  List<String> everything() {
    List<String> out = new ArrayList<>(scrollback);
    out.addAll(lines());
    return out;
  }

  List<String> scrollback() {
    return List.copyOf(scrollback);
  }

  List<String> oddities() {
    return List.copyOf(oddities);
  }

  String title() {
    return title;
  }

  int bells() {
    return bells;
  }

  private static String text(int[] r) {
    StringBuilder b = new StringBuilder();
    for (int cp : r) {
      b.appendCodePoint(cp);
    }
    return b.toString().stripTrailing();
  }
}
