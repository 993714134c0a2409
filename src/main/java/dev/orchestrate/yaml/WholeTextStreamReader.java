package dev.orchestrate.yaml;

import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.reader.StreamReader;

/**
 * snakeyaml's reader over a text already in memory, in linear time. snakeyaml's own
 * {@link StreamReader} refills a 1,024-character buffer by copying every character of the token
 * being scanned each time, so one long token (a 20 MB title without spaces) costs time in the
 * square of its length: minutes for a few megabytes. This reader holds the whole text (the caller
 * has capped its size), as the string it is or, when it has surrogate pairs, as code points, and
 * keeps exactly the base class's contract for
 * {@code peek}, {@code forward}, {@code prefix}, marks, line and column; it overrides every public
 * method, so the base class's own buffer stays empty. The caller has already refused the
 * characters snakeyaml does not allow (see {@link StreamReader#isPrintable(int)}).
 */
final class WholeTextStreamReader extends StreamReader {
  private static final String NAME = "'reader'";
  /**
   * The buffer of every mark of a text read as chars: a mark's buffer only makes the snippet of
   * its {@code toString}, which no message of orchestrate shows (they say the line, the column and
   * the problem), and an empty one makes an empty snippet.
   */
  private static final int[] NO_SNIPPET = new int[0];

  /** The text, when it has no surrogate pairs (every char a code point, as nearly every file); else null. */
  private final String chars;
  /** The text's code points otherwise. */
  private final int[] points;
  private final int length;
  private int pointer;
  private int index;
  private int documentIndex;
  private int line;
  private int column;

  public WholeTextStreamReader(String text) {
    super("");
    boolean surrogates = false;
    for (int i = 0; i < text.length() && !surrogates; i++) {
      surrogates = Character.isSurrogate(text.charAt(i));
    }
    // Read as it is, the text costs nothing more (a Latin-1 string: a byte a character); as code
    // points, four bytes a character (a 64 MiB backlog: 256 MB more).
    this.chars = surrogates ? null : text;
    this.points = surrogates ? codePoints(text) : null;
    this.length = surrogates ? points.length : text.length();
  }

  /**
   * The text's code points, in an array of exactly their number: a stream's {@code toArray} grows
   * chunks and copies them, twice the array again for a moment.
   */
  private static int[] codePoints(String text) {
    int[] points = new int[text.codePointCount(0, text.length())];
    for (int i = 0, at = 0; i < text.length(); at++) {
      int c = text.codePointAt(i);
      points[at] = c;
      i += Character.charCount(c);
    }
    return points;
  }

  private int at(int i) {
    return chars != null ? chars.charAt(i) : points[i];
  }

  @Override
  public Mark getMark() {
    return chars != null ? new Mark(NAME, index, line, column, NO_SNIPPET, 0)
        : new Mark(NAME, index, line, column, points, pointer);
  }

  @Override
  public void forward() {
    forward(1);
  }

  @Override
  public void forward(int length) {
    for (int i = 0; i < length && pointer < this.length; i++) {
      int c = at(pointer++);
      index++;
      documentIndex++;
      if (isLineBreak(c) || (c == '\r' && pointer < this.length && at(pointer) != '\n')) {
        line++;
        column = 0;
      } else if (c != 0xFEFF) {
        column++;
      }
    }
  }

  /** snakeyaml's {@code Constant.LINEBR}: a {@code \r} counts only when no {@code \n} follows. */
  private static boolean isLineBreak(int c) {
    return c == '\n' || c == 0x85 || c == 0x2028 || c == 0x2029;
  }

  @Override
  public int peek() {
    return peek(0);
  }

  @Override
  public int peek(int offset) {
    int i = pointer + offset;
    return i < length ? at(i) : '\0';
  }

  @Override
  public String prefix(int length) {
    int available = Math.max(0, Math.min(length, this.length - pointer));
    return available == 0 ? "" : chars != null ? chars.substring(pointer, pointer + available)
        : new String(points, pointer, available);
  }

  @Override
  public String prefixForward(int length) {
    String prefix = prefix(length);
    pointer += length;
    index += length;
    documentIndex += length;
    column += length;
    return prefix;
  }

  @Override
  public int getColumn() {
    return column;
  }

  @Override
  public int getDocumentIndex() {
    return documentIndex;
  }

  @Override
  public void resetDocumentIndex() {
    documentIndex = 0;
  }

  @Override
  public int getIndex() {
    return index;
  }

  @Override
  public int getLine() {
    return line;
  }
}
