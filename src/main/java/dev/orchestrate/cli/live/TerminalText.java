package dev.orchestrate.cli.live;

import dev.orchestrate.limits.Quote;

/**
 * Text for people's terminals: agent output (summaries, failure context, follow-up titles,
 * blocked reasons) and backlog text are untrusted, and a terminal obeys what it is sent. An
 * escape sequence would retitle the window or clear the screen, a carriage return or line feed
 * would forge a progress line, a bidi override would make text read differently from what it is.
 *
 * <p>{@link #safe} shows every such character as a visible escape instead, so the line still says
 * what the agent wrote: C0 controls and DEL as {@code \x1b} (with {@code \n}, {@code \r} for the
 * line breaks), C1 controls (U+0080–U+009F), the bidi controls (U+202A–U+202E, U+2066–U+2069) and
 * the Unicode line and paragraph separators and the byte-order mark as {@code \u202e}; a tab
 * becomes a space. It is the escaping of {@code limits/Quote}, one function for prompts and
 * terminals alike. A backslash is left as it is (a path stays readable), so the escapes are for
 * reading, not for parsing: {@code --json} has the exact text.
 *
 * <p>Every human renderer goes through it: {@code cli.Table}, the progress lines and the live view,
 * and the commands' own lines that carry stored text.
 */
public final class TerminalText {
  private TerminalText() {
  }

  /**
   * {@code text} with every control character made visible; {@code null} as the empty string. A
   * tab is a space here (a table cell keeps its width); the rest is {@link Quote#escapedLine}.
   */
  public static String safe(String text) {
    return text == null ? "" : Quote.escapedLine(text.indexOf('\t') < 0 ? text : text.replace('\t', ' '));
  }

  /**
   * Like {@link #safe(String)} but keeps line breaks and tabs as they are: for text shown as
   * lines, such as a job's log ({@code orchestrate logs}). A lone CR is still made visible, so it
   * cannot overwrite a line. This is {@link Quote#escapedLines}, the escaping of every prompt.
   */
  public static String safeLines(String text) {
    return Quote.escapedLines(text);
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
