package dev.orchestrate.serve;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The token a dashboard bound beyond loopback asks for: in {@code Authorization: Bearer}, in the
 * {@code orchestrate_token} cookie, or once in {@code ?token=} (which sets that cookie).
 * Compared in constant time.
 */
record AccessToken(String value) {
  static final String COOKIE = "orchestrate_token";

  AccessToken {
    if (value == null || value.length() < 16) {
      throw new IllegalArgumentException("an access token has at least 16 characters");
    }
  }

  static AccessToken generate(SecureRandom random) {
    byte[] bytes = new byte[24];
    random.nextBytes(bytes);
    return new AccessToken(Base64.getUrlEncoder().withoutPadding().encodeToString(bytes));
  }

  boolean matches(String candidate) {
    return candidate != null && MessageDigest.isEqual(value.getBytes(StandardCharsets.UTF_8),
        candidate.getBytes(StandardCharsets.UTF_8));
  }

  /** The token a request carries in its Authorization header or cookie, or null. */
  static String presented(String authorization, java.util.List<String> cookies) {
    if (authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return authorization.substring(7).strip();
    }
    if (cookies != null) {
      for (String header : cookies) {
        for (String part : header.split(";")) {
          String p = part.strip();
          if (p.startsWith(COOKIE + "=")) {
            return p.substring(COOKIE.length() + 1);
          }
        }
      }
    }
    return null;
  }
}
