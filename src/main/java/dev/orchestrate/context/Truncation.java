package dev.orchestrate.context;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Caps text at write time (DESIGN §5.8): a prefix and a suffix survive around a marker
 * {@code …[truncated N chars sha256:<16 hex>]} whose hash is of the full original, so a capped
 * text can still be matched against its source.
 */
public final class Truncation {
  private Truncation() {
  }

  /** {@code text} itself when it fits in {@code maxChars}, else prefix + marker + suffix within it. */
  public static String cap(String text, int maxChars) {
    if (text == null || text.length() <= maxChars) {
      return text;
    }
    String hash = sha256Prefix(text);
    // The marker's length depends on N, which depends on how much is kept: size it for the
    // worst case (N = the whole text), so the result never exceeds maxChars.
    int markerMax = marker(text.length(), hash).length();
    int keep = Math.max(0, maxChars - markerMax);
    int prefix = keep - keep / 3;
    int suffix = keep - prefix;
    prefix = avoidSplitSurrogate(text, prefix);
    int suffixStart = text.length() - suffix;
    if (suffixStart < text.length() && Character.isLowSurrogate(text.charAt(suffixStart))) {
      suffixStart++;
    }
    int dropped = suffixStart - prefix;
    return text.substring(0, prefix) + marker(dropped, hash) + text.substring(suffixStart);
  }

  private static int avoidSplitSurrogate(String text, int end) {
    return end > 0 && Character.isHighSurrogate(text.charAt(end - 1)) ? end - 1 : end;
  }

  private static String marker(int dropped, String hash) {
    return "…[truncated " + dropped + " chars sha256:" + hash + "]";
  }

  static String sha256Prefix(String text) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest).substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JVM", e);
    }
  }
}
