package dev.orchestrate.serve;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The secret every action form of {@code serve --actions} carries in a hidden field: 32 random bytes
 * drawn once per server, so a page of another site, which cannot read this server's pages (the
 * {@code Host} check, the same-origin rule), cannot make a form this server accepts. Compared in
 * constant time.
 */
final class CsrfToken {
  static final String FIELD = "csrf";
  private final String value;

  CsrfToken(SecureRandom random) {
    byte[] bytes = new byte[32];
    random.nextBytes(bytes);
    value = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  String value() {
    return value;
  }

  boolean matches(String candidate) {
    return candidate != null && MessageDigest.isEqual(value.getBytes(StandardCharsets.UTF_8),
        candidate.getBytes(StandardCharsets.UTF_8));
  }
}
