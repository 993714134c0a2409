package dev.orchestrate.jobs;

import java.nio.charset.StandardCharsets;

/**
 * The last bytes of a stream, in a fixed ring, decoded only on demand. Whatever an agent prints,
 * memory stays at a few bytes per requested character.
 */
final class TailBuffer {

  /** UTF-8 needs at most 3 bytes per UTF-16 char (4 for a surrogate pair, i.e. 2 per char). */
  private static final int MAX_BYTES_PER_CHAR = 3;
  /** A ring that starts inside a character loses at most its 3 continuation bytes. */
  private static final int MAX_CONTINUATION_BYTES = 3;

  private final int maxChars;
  private final byte[] ring;
  private long total;

  TailBuffer(int maxChars) {
    if (maxChars < 0) {
      throw new IllegalArgumentException("maxChars must not be negative, got " + maxChars);
    }
    this.maxChars = maxChars;
    long capacity = (long) maxChars * MAX_BYTES_PER_CHAR + MAX_CONTINUATION_BYTES;
    this.ring = new byte[(int) Math.min(capacity, Integer.MAX_VALUE - 16)];
  }

  synchronized void append(byte[] bytes, int offset, int length) {
    int skipped = Math.max(0, length - ring.length);
    total += skipped;
    int from = offset + skipped;
    int count = length - skipped;
    int position = (int) (total % ring.length);
    int first = Math.min(count, ring.length - position);
    System.arraycopy(bytes, from, ring, position, first);
    System.arraycopy(bytes, from + first, ring, 0, count - first);
    total += count;
  }

  /**
   * The last {@code maxChars} characters, decoded as UTF-8 with replacement, never starting with
   * half a character or half a surrogate pair.
   */
  synchronized String text() {
    if (maxChars == 0) {
      return "";
    }
    String decoded = decode(orderedBytes());
    if (decoded.length() <= maxChars) {
      return decoded;
    }
    int start = decoded.length() - maxChars;
    if (Character.isLowSurrogate(decoded.charAt(start))) {
      start++;
    }
    return decoded.substring(start);
  }

  private byte[] orderedBytes() {
    if (total <= ring.length) {
      byte[] bytes = new byte[(int) total];
      System.arraycopy(ring, 0, bytes, 0, bytes.length);
      return bytes;
    }
    byte[] bytes = new byte[ring.length];
    int position = (int) (total % ring.length);
    System.arraycopy(ring, position, bytes, 0, ring.length - position);
    System.arraycopy(ring, 0, bytes, ring.length - position, position);
    return bytes;
  }

  private String decode(byte[] bytes) {
    int start = 0;
    if (total > ring.length) {
      // The ring has wrapped, so its first bytes may be the end of a character cut in two.
      while (start < MAX_CONTINUATION_BYTES && start < bytes.length
          && isContinuation(bytes[start])) {
        start++;
      }
    }
    return new String(bytes, start, bytes.length - start, StandardCharsets.UTF_8);
  }

  private static boolean isContinuation(byte b) {
    return (b & 0xC0) == 0x80;
  }
}
