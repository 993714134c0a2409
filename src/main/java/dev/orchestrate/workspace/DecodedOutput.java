package dev.orchestrate.workspace;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * A sink for git's bytes that reads them as UTF-8 text as they come (a malformed byte becomes
 * U+FFFD), one bounded buffer whatever the size: the decoding {@code diff ID}'s terminal text and
 * the dashboard's diff page share. A subclass takes each run of decoded characters.
 */
public abstract class DecodedOutput extends OutputStream {
  private final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
      .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
  private final ByteBuffer in = ByteBuffer.allocate(8192);
  private final CharBuffer chars = CharBuffer.allocate(8192);

  /**
   * Takes the characters decoded so far, from its position to its limit; what it leaves unread
   * is dropped. An {@link IOException} stops git.
   */
  protected abstract void decoded(CharBuffer text) throws IOException;

  @Override
  public void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    while (len > 0) {
      int n = Math.min(len, in.remaining());
      in.put(b, off, n);
      off += n;
      len -= n;
      in.flip();
      decoder.decode(in, chars, false);
      in.compact();
      hand();
    }
  }

  /** Decodes what is left (a sequence cut at the end becomes U+FFFD) and hands it over. */
  @Override
  public void close() throws IOException {
    in.flip();
    decoder.decode(in, chars, true);
    decoder.flush(chars);
    in.clear();
    hand();
  }

  private void hand() throws IOException {
    chars.flip();
    try {
      decoded(chars);
    } finally {
      chars.clear();
    }
  }
}
