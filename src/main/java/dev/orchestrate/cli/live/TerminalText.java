package dev.orchestrate.cli.live;

/**
 * Text for people's terminals: agent output (summaries, failure context, follow-up titles,
 * blocked reasons) and backlog text are untrusted, and a terminal obeys what it is sent. An
 * escape sequence would retitle the window or clear the screen, a carriage return or line feed
 * would forge a progress line, a bidi override would make text read differently from what it is.
 *
 * <p>{@link #safe} shows every such character as a visible escape instead, so the line still says
 * what the agent wrote: C0 controls and DEL as {@code \x1b} (with {@code \n}, {@code \r} for the
 * line breaks), C1 controls (U+0080–U+009F), the bidi controls (U+202A–U+202E, U+2066–U+2069) and
 * the Unicode line and paragraph separators as {@code \u202e}; a tab becomes a space. A backslash
 * is left as it is (a path stays readable), so the escapes are for reading, not for parsing:
 * {@code --json} has the exact text.
 *
 * <p>Every human renderer goes through it: {@code cli.Table}, the progress lines and the live view,
 * and the commands' own lines that carry stored text.
 */
public final class TerminalText {
  private TerminalText() {
  }

  /** {@code text} with every control character made visible; {@code null} as the empty string. */
  public static String safe(String text) {
    return safe(text, false);
  }

  /**
   * Like {@link #safe(String)} but keeps line breaks and tabs as they are: for text shown as
   * lines, such as a job's log ({@code orchestrate logs}). A lone CR is still made visible, so it
   * cannot overwrite a line.
   */
  public static String safeLines(String text) {
    return safe(text, true);
  }

  private static String safe(String text, boolean keepLines) {
    if (text == null) {
      return "";
    }
    int first = firstUnsafe(text, keepLines);
    if (first < 0) {
      return text;
    }
    StringBuilder out = new StringBuilder(text.length() + 16).append(text, 0, first);
    for (int i = first; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!unsafe(c) || (keepLines && (c == '\n' || c == '\t'))) {
        out.append(c);
      } else if (c == '\t') {
        out.append(' ');
      } else if (c == '\n') {
        out.append("\\n");
      } else if (c == '\r') {
        out.append("\\r");
      } else if (c < 0x80) {
        out.append(String.format("\\x%02x", (int) c));
      } else {
        out.append(String.format("\\u%04x", (int) c));
      }
    }
    return out.toString();
  }

  private static int firstUnsafe(String text, boolean keepLines) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (unsafe(c) && !(keepLines && (c == '\n' || c == '\t'))) {
        return i;
      }
    }
    return -1;
  }

  private static boolean unsafe(char c) {
    return c < 0x20 || (c >= 0x7f && c <= 0x9f)
        || (c >= '\u202a' && c <= '\u202e') || (c >= '\u2066' && c <= '\u2069')
        || c == '\u2028' || c == '\u2029';
  }

  /** A multi-line reason folded into one line of at most 120 characters, for tables and progress. */
  public static String oneLine(String text) {
    if (text == null) {
      return "";
    }
    String line = text.strip().replaceAll("\\s*\\R\\s*", " | ");
    return line.length() > 120 ? line.substring(0, 119) + "…" : line;
  }
}
