package dev.orchestrate.yaml;

import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.reader.StreamReader;

/**
 * snakeyaml's reader over a text already in memory, in linear time. snakeyaml's own
 * {@link StreamReader} refills a 1,024-character buffer by copying every character of the token
 * being scanned each time, so one long token (a 20 MB title without spaces) costs time in the
 * square of its length: minutes for a few megabytes. This reader holds the whole text as code
 * points (the caller has capped its size) and keeps exactly the base class's contract for
 * {@code peek}, {@code forward}, {@code prefix}, marks, line and column; it overrides every public
 * method, so the base class's own buffer stays empty. The caller has already refused the
 * characters snakeyaml does not allow (see {@link StreamReader#isPrintable(int)}).
 */
final class WholeTextStreamReader extends StreamReader {
  private static final String NAME = "'reader'";

  private final int[] text;
  private int pointer;
  private int index;
  private int documentIndex;
  private int line;
  private int column;

  public WholeTextStreamReader(String text) {
    super("");
    this.text = codePoints(text);
  }

  /**
   * The text's code points, in an array of exactly their number: a stream's {@code toArray} grows
   * chunks and copies them, twice the array again for a moment (a 64 MiB backlog: 256 MB more).
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

  @Override
  public Mark getMark() {
    return new Mark(NAME, index, line, column, text, pointer);
  }

  @Override
  public void forward() {
    forward(1);
  }

  @Override
  public void forward(int length) {
    for (int i = 0; i < length && pointer < text.length; i++) {
      int c = text[pointer++];
      index++;
      documentIndex++;
      if (isLineBreak(c) || (c == '\r' && pointer < text.length && text[pointer] != '\n')) {
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
    int at = pointer + offset;
    return at < text.length ? text[at] : '\0';
  }

  @Override
  public String prefix(int length) {
    int available = Math.max(0, Math.min(length, text.length - pointer));
    return available == 0 ? "" : new String(text, pointer, available);
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
