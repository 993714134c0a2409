package dev.orchestrate.jobs;

import dev.orchestrate.limits.SizeCap;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * The first and last bytes of a stream, in fixed buffers, decoded only on demand, plus a running
 * SHA-256 and character count of everything that passed. Whatever an agent prints, memory stays
 * at a few bytes per requested character, yet the output can still be given in the size-cap form
 * (beginning, {@code …[truncated N chars sha256:…]}, end) with the hash of the whole stream.
 */
final class TailBuffer {

  /** UTF-8 needs at most 3 bytes per UTF-16 char (4 for a surrogate pair, i.e. 2 per char). */
  private static final int MAX_BYTES_PER_CHAR = 3;
  /** A ring that starts inside a character loses at most its 3 continuation bytes. */
  private static final int MAX_CONTINUATION_BYTES = 3;

  /** The buffers start this small and double as output arrives, up to what maxChars needs. */
  static final int INITIAL_BYTES = 8 * 1024;

  private final int maxChars;
  private final int capacity;
  private final int headCapacity;
  private byte[] head;
  private byte[] ring;
  private final MessageDigest digest = SizeCap.sha256();
  private long total;
  /** UTF-16 chars of the stream decoded as UTF-8 (exact for valid UTF-8, close otherwise). */
  private long chars;

  TailBuffer(int maxChars) {
    if (maxChars < 0) {
      throw new IllegalArgumentException("maxChars must not be negative, got " + maxChars);
    }
    this.maxChars = maxChars;
    long bytes = (long) maxChars * MAX_BYTES_PER_CHAR + MAX_CONTINUATION_BYTES;
    this.capacity = (int) Math.min(bytes, Integer.MAX_VALUE - 16);
    this.headCapacity = maxChars < SizeCap.MIN_CAP ? 0 : capacity;
    // Nothing in proportion to the cap before output arrives: a large cap costs only what is printed.
    this.ring = new byte[Math.min(capacity, INITIAL_BYTES)];
    this.head = new byte[Math.min(headCapacity, INITIAL_BYTES)];
  }

  /** Grows both buffers to hold {@code needed} bytes, up to their capacities; the ring has not wrapped. */
  private void grow(long needed) {
    if (ring.length < capacity && needed > ring.length) {
      ring = java.util.Arrays.copyOf(ring, (int) Math.min(capacity, Math.max(needed, 2L * ring.length)));
    }
    if (head.length < headCapacity && needed > head.length) {
      head = java.util.Arrays.copyOf(head, (int) Math.min(headCapacity, Math.max(needed, 2L * head.length)));
    }
  }

  synchronized void append(byte[] bytes, int offset, int length) {
    grow(total + length);
    digest.update(bytes, offset, length);
    for (int i = offset; i < offset + length; i++) {
      chars += charsStartingAt(bytes[i]);
    }
    if (total < head.length) {
      System.arraycopy(bytes, offset, head, (int) total, (int) Math.min(length, head.length - total));
    }
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
   * half a character or half a surrogate pair. What the job log ends with.
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

  /** Whether the stream was longer than {@code maxChars}, so {@link #capped} cut it. */
  synchronized boolean truncated() {
    // A wrapped ring held more bytes than maxChars chars can take, so more chars passed.
    return total > ring.length || decode(orderedBytes()).length() > maxChars;
  }

  /**
   * The stream within {@code maxChars} in the size-cap form: whole when it fits, else its
   * beginning and end around the marker with the hash of all of it. A cap too small for the
   * marker (below {@link SizeCap#MIN_CAP}) gives the plain end, as {@link #text} does.
   */
  synchronized String capped() {
    if (maxChars < SizeCap.MIN_CAP) {
      return text();
    }
    if (total <= ring.length) {
      return SizeCap.cap(decode(orderedBytes()), maxChars); // nothing was lost: cap the whole
    }
    String hash = SizeCap.hex(cloneDigest().digest());
    String end = text();
    return SizeCap.cap(decodeHead(), end, Math.max(chars, maxChars + 1L), hash, maxChars);
  }

  /** 1 for a byte that starts a char, 2 for one that starts a surrogate pair, 0 for a continuation. */
  private static int charsStartingAt(byte b) {
    if (isContinuation(b)) {
      return 0;
    }
    return (b & 0xF8) == 0xF0 ? 2 : 1;
  }

  private MessageDigest cloneDigest() {
    try {
      return (MessageDigest) digest.clone();
    } catch (CloneNotSupportedException e) {
      throw new IllegalStateException("the JDK's SHA-256 cannot be cloned", e);
    }
  }

  /** The head buffer, without a character cut in two at its end. */
  private String decodeHead() {
    int end = head.length;
    int back = 0;
    while (back < MAX_CONTINUATION_BYTES && end - back - 1 >= 0 && isContinuation(head[end - back - 1])) {
      back++;
    }
    int lead = end - back - 1;
    if (lead >= 0 && !isContinuation(head[lead]) && sequenceLength(head[lead]) > back + 1) {
      end = lead; // the last character's bytes run past the buffer
    }
    return new String(head, 0, end, StandardCharsets.UTF_8);
  }

  private static int sequenceLength(byte lead) {
    if ((lead & 0x80) == 0) {
      return 1;
    }
    if ((lead & 0xE0) == 0xC0) {
      return 2;
    }
    if ((lead & 0xF0) == 0xE0) {
      return 3;
    }
    return (lead & 0xF8) == 0xF0 ? 4 : 1;
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
