package dev.orchestrate.limits;

/**
 * Quotes a value the user gave (an id, a key, a flag's value, a path) inside an error message. An
 * error message is one line of reasonable length whatever the input: a value longer than
 * {@link #MAX_CHARS} keeps only its beginning and says how long it was, and control characters
 * (a newline in an id, an escape sequence) are written as escapes ({@code \n}, {@code \x1b}),
 * so no value can split the message, forge another line, or reach the terminal raw.
 */
public final class Quote {
  /** How much of a value a message shows: enough to recognise an id or a typo. */
  public static final int MAX_CHARS = 60;

  private Quote() {
  }

  /** {@code 'WRK-001'}; {@code 'aaaa…' (1048576 characters)} for a long one; {@code 'a\nb'}. */
  public static String value(String text) {
    if (text == null) {
      return "nothing";
    }
    return "'" + escaped(text) + "'" + (text.length() > MAX_CHARS ? " (" + text.length() + " characters)" : "");
  }

  /**
   * The text with control characters escaped and cut after {@link #MAX_CHARS} characters (marked
   * with {@code …}), without quotes: for values that messages show unquoted, such as paths.
   */
  public static String escaped(String text) {
    if (text == null) {
      return "";
    }
    if (text.length() <= MAX_CHARS) {
      return escape(text, text.length());
    }
    int end = Character.isHighSurrogate(text.charAt(MAX_CHARS - 1)) ? MAX_CHARS - 1 : MAX_CHARS;
    return escape(text, end) + "…";
  }

  /**
   * Text of several lines (a command's output quoted in a prompt) with every control character
   * escaped as in {@link #escaped} but line breaks and tabs, which are kept; not cut. The one
   * escaping of untrusted text that reaches a prompt or a terminal (issue 43): gate, checks,
   * pull-request and git output, review notes, summaries, the terminal's text
   * ({@code cli/live/TerminalText} is this); {@code null} as the empty string.
   */
  public static String escapedLines(String text) {
    return text == null ? "" : escape(text, text.length(), true);
  }

  /** One line of untrusted text, every control character (line breaks too) escaped; not cut. */
  public static String escapedLine(String text) {
    return text == null ? "" : escape(text, text.length(), false);
  }

  private static String escape(String text, int end) {
    return escape(text, end, false);
  }

  private static String escape(String text, int end, boolean keepLines) {
    int first = 0;
    while (first < end && !needsEscape(text.charAt(first), keepLines)) {
      first++;
    }
    if (first == end) {
      return end == text.length() ? text : text.substring(0, end); // the common case: nothing to escape
    }
    StringBuilder out = new StringBuilder(end + 8).append(text, 0, first);
    for (int i = first; i < end; i++) {
      char c = text.charAt(i);
      switch (c) {
        case '\n' -> out.append(keepLines ? "\n" : "\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append(keepLines ? "\t" : "\\t");
        default -> {
          if (needsEscape(c)) {
            // The form of the terminal output (TerminalText): two hex digits for ASCII, four beyond.
            out.append(c < 0x80 ? String.format("\\x%02x", (int) c) : String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.toString();
  }

  /**
   * A message made safe to print as one line: control characters escaped as in {@link #escaped},
   * and cut after {@code maxChars} characters (marked with {@code …}). The last line of defence
   * for text that names no value through {@link #value}: paths, messages of libraries.
   */
  public static String line(String text, int maxChars) {
    String escaped = escape(text, text.length());
    if (escaped.length() <= maxChars) {
      return escaped;
    }
    int end = Character.isHighSurrogate(escaped.charAt(maxChars - 1)) ? maxChars - 1 : maxChars;
    return escaped.substring(0, end) + "…";
  }

  /**
   * C0 and C1 controls, DEL, the line and paragraph separators and the bidirectional controls
   * (which can reorder what a terminal shows).
   */
  private static boolean needsEscape(char c, boolean keepLines) {
    return needsEscape(c) && !(keepLines && (c == '\n' || c == '\t'));
  }

  private static boolean needsEscape(char c) {
    return c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == 0x2028 || c == 0x2029
        || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069) || c == 0xFEFF;
  }
}
