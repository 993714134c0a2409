package dev.orchestrate.limits;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Caps text at write time (docs/how-it-works.md): a text over the cap keeps its beginning and its end,
 * joined by {@code …[truncated N chars sha256:<16 hex>]}, where N is how many characters were
 * cut and the hash is of the whole original, so a copy of the original can be recognised.
 * The result is never longer than the cap and never splits a surrogate pair. One class for every
 * capped write (agent output, result-file fields, notes, turns, summaries, memory content), so the
 * marker is the same everywhere.
 *
 * <p>A cap below {@link #MIN_CAP} is refused rather than honoured with a marker that does not fit
 * or a silent cut without one: every cap is a constant or a validated config value, so a tiny one
 * is a bug to catch at once.
 */
public final class SizeCap {
  /** Below this the marker (at most 62 characters, for N up to 19 digits) would leave no text. */
  public static final int MIN_CAP = 80;

  private SizeCap() {
  }

  /** {@code text} itself when it fits (null stays null), else its beginning and end around the marker. */
  public static String cap(String text, int maxChars) {
    requireCap(maxChars);
    if (!exceeds(text, maxChars)) {
      return text;
    }
    return join(text, text, text.length(), sha256Prefix(text), maxChars);
  }

  /** Whether {@link #cap} would cut {@code text}: what a store counts as a truncated write. */
  public static boolean exceeds(String text, int maxChars) {
    return text != null && text.length() > maxChars;
  }

  /**
   * Caps a text known only by its beginning and its end, such as a stream whose middle was never
   * kept: {@code head} starts the original, {@code tail} ends it, the original was
   * {@code totalChars} long (more than {@code maxChars}) and {@code hash} is its
   * {@link #sha256Prefix}. The layout is exactly that of {@link #cap}.
   */
  public static String cap(String head, String tail, long totalChars, String hash, int maxChars) {
    requireCap(maxChars);
    if (totalChars <= maxChars) {
      throw new IllegalArgumentException("a text of " + totalChars + " chars fits a cap of " + maxChars
          + "; cap the whole text instead");
    }
    return join(head, tail, totalChars, hash, maxChars);
  }

  private static String join(String head, String tail, long totalChars, String hash, int maxChars) {
    // The marker's length depends on N, which depends on what is kept: start with the marker
    // sized for the largest N possible (the whole text); when the real N has fewer digits, keep
    // that much more and size again. Keeping more only shortens N, so this ends, and the result
    // is exactly maxChars unless a surrogate pair or short ends (a stream) leave it shorter.
    int markerLength = marker(totalChars, hash).length();
    while (true) {
      int keep = maxChars - markerLength;
      int headEnd = Math.min(keep - keep / 3, head.length());
      int tailStart = tail.length() - Math.min(keep / 3, tail.length());
      // never split a surrogate pair
      if (headEnd > 0 && Character.isHighSurrogate(head.charAt(headEnd - 1))) {
        headEnd--;
      }
      if (tailStart < tail.length() && Character.isLowSurrogate(tail.charAt(tailStart))) {
        tailStart++;
      }
      long cut = totalChars - headEnd - (tail.length() - tailStart);
      String marker = marker(cut, hash);
      if (marker.length() == markerLength) {
        return head.substring(0, headEnd) + marker + tail.substring(tailStart);
      }
      markerLength = marker.length();
    }
  }

  static String marker(long cutChars, String hash) {
    return "…[truncated " + cutChars + " chars sha256:" + hash + "]";
  }

  /** The first 16 hex digits of the SHA-256 of {@code text} (UTF-8), as in the marker. */
  public static String sha256Prefix(String text) {
    return hex(sha256().digest(text.getBytes(StandardCharsets.UTF_8)));
  }

  /** A fresh SHA-256 digest, for hashing a stream as it passes (then {@link #hex} of its digest). */
  public static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JDK", e);
    }
  }

  /** The first 16 hex digits of a digest, as in the marker. */
  public static String hex(byte[] digest) {
    return HexFormat.of().formatHex(digest, 0, 8);
  }

  private static void requireCap(int maxChars) {
    if (maxChars < MIN_CAP) {
      throw new IllegalArgumentException("cap must be at least " + MIN_CAP + " characters, got " + maxChars);
    }
  }
}
