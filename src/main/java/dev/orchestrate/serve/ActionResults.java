package dev.orchestrate.serve;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the last {@link #KEPT} actions of {@code serve --actions} came to, for the page the browser is
 * sent to after each one ({@code /items/ID?result=KEY}: a reload shows it again and repeats
 * nothing). An action still working when the answer is due is kept as such, and filled in when it
 * ends. Keys are random, so one browser cannot guess another's.
 */
final class ActionResults {
  static final int KEPT = 64;

  /** An action's outcome; {@code message} null while it works. */
  record Entry(boolean applied, String message) {
    boolean working() {
      return message == null;
    }
  }

  private final SecureRandom random;
  private final Map<String, Entry> entries = new LinkedHashMap<>(16, 0.75f, false) {
    private static final long serialVersionUID = 1L;

    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Entry> eldest) {
      return size() > KEPT;
    }
  };

  ActionResults(SecureRandom random) {
    this.random = random;
  }

  /** A new key, its action working. */
  synchronized String start() {
    byte[] bytes = new byte[12];
    random.nextBytes(bytes);
    String key = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    entries.put(key, new Entry(false, null));
    return key;
  }

  synchronized void end(String key, boolean applied, String message) {
    if (entries.containsKey(key)) {
      entries.put(key, new Entry(applied, message));
    }
  }

  /** The entry of {@code key}, or null when there is none (or no longer). */
  synchronized Entry get(String key) {
    return key == null ? null : entries.get(key);
  }
}
