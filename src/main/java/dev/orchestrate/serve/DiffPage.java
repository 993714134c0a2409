package dev.orchestrate.serve;

import static dev.orchestrate.serve.Html.esc;

import dev.orchestrate.workspace.DecodedOutput;
import java.io.IOException;
import java.nio.CharBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * One page of an item's patch for the item page: git's bytes as they stream
 * ({@link dev.orchestrate.app.ItemDiff#patch}), cut into files at each {@code diff --git} line, the
 * files of one page kept, and shown as escaped text in a {@code <pre>}: nothing of the repository
 * is interpreted (no highlighting by language, no markup, no link), a line only marked added,
 * removed or a hunk's head by a class. Bounded whatever git sends: {@link #FILES} files a page, at
 * most {@link #MAX_CHARS} characters of them (the rest of the page is cut, and says so), a line
 * kept up to {@link #MAX_LINE_CHARS}. Once the page's last file ends, the sink refuses more
 * ({@link Full}), which stops git.
 */
final class DiffPage extends DecodedOutput {
  /** Files a page shows. */
  static final int FILES = 20;
  /** Characters of patch a page shows, at most. */
  static final int MAX_CHARS = 256 * 1024;
  /** Characters of one line kept (a minified file is one line). */
  static final int MAX_LINE_CHARS = 4096;

  /** Thrown into git's stream once the page is complete: the next page's first file began. */
  static final class Full extends IOException {
    private static final long serialVersionUID = 1L;

    Full() {
      super("the page is complete");
    }
  }

  private final int first;
  private final StringBuilder line = new StringBuilder();
  private boolean lineCut;
  private final List<StringBuilder> files = new ArrayList<>();
  private int file = -1;
  private long shown;
  private boolean cut;
  private boolean more;

  /** @param page the page, from 0 */
  DiffPage(int page) {
    this.first = page * FILES;
  }

  @Override
  protected void decoded(CharBuffer chars) throws Full {
    while (chars.hasRemaining()) {
      char c = chars.get();
      if (c == '\n') {
        endLine();
      } else if (line.length() < MAX_LINE_CHARS) {
        line.append(c);
      } else {
        lineCut = true;
      }
    }
  }

  /** Ends the stream: the last line, when git's output did not end with a line break. */
  @Override
  public void close() throws IOException {
    super.close();
    if (line.length() > 0) {
      endLine();
    }
  }

  private void endLine() throws Full {
    String text = line.toString() + (lineCut ? " …[line cut at " + MAX_LINE_CHARS + " characters]" : "");
    line.setLength(0);
    lineCut = false;
    if (text.startsWith("diff --git ")) {
      file++;
      if (file >= first + FILES) {
        more = true;
        throw new Full();
      }
    }
    if (file < first) {
      return;
    }
    if (shown + text.length() > MAX_CHARS) {
      cut = true;
      return;
    }
    shown += text.length() + 1;
    if (text.startsWith("diff --git ") || files.isEmpty()) {
      files.add(new StringBuilder());
    }
    StringBuilder f = files.get(files.size() - 1);
    String kind = text.startsWith("+++ ") || text.startsWith("--- ") ? null
        : text.startsWith("+") ? "add" : text.startsWith("-") ? "del" : text.startsWith("@@") ? "hunk" : null;
    if (kind == null) {
      f.append(esc(text));
    } else {
      f.append("<span class=\"").append(kind).append("\">").append(esc(text)).append("</span>");
    }
    f.append('\n');
  }

  /** The page's files as HTML, each a section headed by its {@code diff --git} line. */
  void appendFiles(StringBuilder b) {
    for (StringBuilder f : files) {
      int end = f.indexOf("\n");
      b.append("<section class=\"diff-file\"><h3>").append(end < 0 ? f : f.substring(0, end))
          .append("</h3><pre class=\"diff\">").append(end < 0 ? "" : f.substring(end + 1)).append("</pre></section>");
    }
  }

  /** Files shown on this page. */
  int shownFiles() {
    return files.size();
  }

  /** Whether the page's text reached {@link #MAX_CHARS} and the rest of it was left out. */
  boolean cut() {
    return cut;
  }

  /** Whether a file follows this page's last one. */
  boolean more() {
    return more;
  }
}
