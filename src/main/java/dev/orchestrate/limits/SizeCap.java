package dev.orchestrate.limits;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Caps text at write time (DESIGN §5.8): a text over the cap keeps its beginning and its end,
 * joined by {@code …[truncated N chars sha256:<16 hex>]}, where N is how many characters were
 * cut and the hash is of the whole original, so a copy of the original can be recognised.
 * The result is never longer than the cap (for caps of at least {@link #MIN_CAP}). One class for
 * every capped write (memory content, turns, summaries), so the marker is the same everywhere.
 */
public final class SizeCap {
  /** Below this the marker alone would not fit. */
  public static final int MIN_CAP = 80;

  private SizeCap() {
  }

  public static String cap(String text, int maxChars) {
    if (maxChars < MIN_CAP) {
      throw new IllegalArgumentException("cap must be at least " + MIN_CAP + " characters, got " + maxChars);
    }
    if (text == null || text.length() <= maxChars) {
      return text;
    }
    String hash = sha256Prefix(text);
    // The marker's length depends on N, which depends on the marker's length: size it for the
    // largest N possible (the whole text), then keep exactly what is left.
    int markerChars = marker(text.length(), hash).length();
    int keep = maxChars - markerChars;
    int head = keep - keep / 3;
    int tail = keep / 3;
    // never split a surrogate pair
    if (head > 0 && Character.isHighSurrogate(text.charAt(head - 1))) {
      head--;
    }
    int tailStart = text.length() - tail;
    if (tail > 0 && Character.isLowSurrogate(text.charAt(tailStart))) {
      tailStart++;
    }
    int cut = tailStart - head;
    return text.substring(0, head) + marker(cut, hash) + text.substring(tailStart);
  }

  static String marker(int cutChars, String hash) {
    return "…[truncated " + cutChars + " chars sha256:" + hash + "]";
  }

  /** The first 16 hex digits of the SHA-256 of {@code text} (UTF-8), as in the marker. */
  public static String sha256Prefix(String text) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JDK", e);
    }
  }
}
