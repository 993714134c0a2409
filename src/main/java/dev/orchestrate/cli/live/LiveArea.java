package dev.orchestrate.cli.live;

import java.util.List;

/**
 * The bytes that keep the live view's status area at the bottom of the terminal while lines
 * scroll above it: a pure function of the screen size, the area's height and the text, so it is
 * tested by feeding them to a screen model. No jline here.
 *
 * <h2>The model</h2>
 * The area takes the bottom {@code height} rows of the screen. Every operation addresses rows
 * absolutely (CUP), never relative to where the last one left the cursor, so none depends on an
 * earlier one having landed where it meant to, but one: a new terminal size, where the rows the
 * old area took are found from the cursor, parked on its last row, which the terminal moved with
 * the text (it alone knows how far). There is no scroll region: a terminal keeps in its
 * scrollback only what scrolls off a whole screen (tmux drops what scrolls off a region), and the
 * lines must stay in the scrollback.
 * <ul>
 *   <li>a line: the area erased, the text written on its top row (a long line wraps), then
 *       {@code height} line feeds: the screen scrolls until the area's rows are free again below
 *       the text, and the area is painted back. What scrolls off the top is lines, never the area
 *       (it was erased first);
 *   <li>the area: each row addressed, written, and erased to its end;
 *   <li>growing by {@code k} rows: the area erased, {@code k} line feeds on the bottom row (the
 *       lines move up out of the way), the area painted;
 *   <li>shrinking (only when the terminal got too small for it): the rows given back are erased;
 *   <li>a new terminal size: the old area erased from its top, found by moving up from the cursor
 *       (parked on its last row, and moved with the text by the terminal), counting the rows its
 *       lines take if the terminal rewrapped them to a narrower width, to the end of the screen;
 *       then the area painted at the new bottom.
 * </ul>
 * The cursor is hidden while the area is shown (it is parked wherever the last write left it).
 * {@link #close} erases the area and leaves the cursor on its top row, so what is printed next
 * follows the lines.
 */
final class LiveArea {
  static final String ESC = "\033";
  private static final String HIDE_CURSOR = ESC + "[?25l";
  private static final String SHOW_CURSOR = ESC + "[?25h";
  private static final String ERASE_LINE_END = ESC + "[K";
  private static final String ERASE_SCREEN_END = ESC + "[J";
  private static final String RESET_STYLE = ESC + "[0m";

  private int rows;
  private int columns;
  private int height;
  /** The widths of the area's lines as last painted, to know what a narrower terminal made of them. */
  private int[] widths = new int[0];

  LiveArea(int rows, int columns) {
    this.rows = rows;
    this.columns = columns;
  }

  int rows() {
    return rows;
  }

  int columns() {
    return columns;
  }

  /** The most rows the area may take: at least two stay for the lines. */
  int maxHeight() {
    return Math.max(1, rows - 2);
  }

  int height() {
    return height;
  }

  /**
   * The first paint: line feeds from wherever the cursor is until the bottom rows are free (what
   * was on the screen scrolls up if it had to), then the area.
   */
  String open(List<Line> area) {
    int h = Math.min(area.size(), maxHeight());
    StringBuilder out = new StringBuilder(HIDE_CURSOR).append('\r').append("\n".repeat(h));
    height = h;
    paint(out, area);
    return out.toString();
  }

  /** A line above the area; it may wrap; it must hold no control character. */
  String line(String text, List<Line> area) {
    StringBuilder out = new StringBuilder();
    cursor(out, top(), 1);
    out.append(ERASE_SCREEN_END).append(text).append(RESET_STYLE);
    // From the text's last row, height line feeds: the screen scrolls so the area fits below it.
    out.append("\r\n".repeat(Math.max(1, height)));
    return out.append(draw(area)).toString();
  }

  /** Repaints the area with {@code area}, growing or shrinking it to its size (at most {@link #maxHeight}). */
  String draw(List<Line> area) {
    StringBuilder out = new StringBuilder();
    int h = Math.min(area.size(), maxHeight());
    if (h > height) {
      cursor(out, top(), 1);
      out.append(ERASE_SCREEN_END);
      cursor(out, rows, 1);
      out.append("\n".repeat(h - height));
    } else if (h < height) {
      cursor(out, top(), 1);
      out.append(ERASE_SCREEN_END);
    }
    height = h;
    paint(out, area);
    return out.toString();
  }

  /**
   * The terminal is now {@code newRows} by {@code newColumns}: the area is painted at the new
   * bottom; {@code area} must already fit the new width.
   */
  String resize(int newRows, int newColumns, List<Line> area) {
    int rewrapped = 0;
    if (newColumns < columns) {
      for (int w : widths) {
        rewrapped += Math.max(1, (w + newColumns - 1) / Math.max(1, newColumns)) - 1;
      }
    }
    // The rows the old area takes now: the cursor was parked on its last one, and the terminal
    // moved it with the text. Found from there, not from the new size's bottom: a grown screen
    // fills its top from the scrollback only as far as that holds lines, and the old area may sit
    // anywhere between where it was and the new bottom.
    int painted = height + rewrapped;
    rows = newRows;
    columns = newColumns;
    height = Math.min(area.size(), maxHeight());
    StringBuilder out = new StringBuilder("\r");
    if (painted > 1) {
      out.append(ESC).append('[').append(painted - 1).append('A');
    }
    out.append(ERASE_SCREEN_END);
    paint(out, area);
    return out.toString();
  }

  /** Gives the screen back: area erased, cursor on its top row and shown. */
  String close() {
    StringBuilder out = new StringBuilder();
    cursor(out, top(), 1);
    out.append(ERASE_SCREEN_END).append(SHOW_CURSOR);
    height = 0;
    widths = new int[0];
    return out.toString();
  }

  private int top() {
    return rows - height + 1;
  }

  private void paint(StringBuilder out, List<Line> area) {
    int top = top();
    widths = new int[height];
    for (int i = 0; i < height; i++) {
      Line line = area.get(i);
      cursor(out, top + i, 1);
      out.append(line.text()).append(RESET_STYLE).append(ERASE_LINE_END);
      widths[i] = line.width();
    }
  }

  private static void cursor(StringBuilder out, int row, int column) {
    out.append(ESC).append('[').append(row).append(';').append(column).append('H');
  }

  /** One row of the area: its text (styles included) and how many columns it takes. */
  record Line(String text, int width) {
    static Line plain(String text) {
      return new Line(text, text.codePointCount(0, text.length()));
    }
  }
}
