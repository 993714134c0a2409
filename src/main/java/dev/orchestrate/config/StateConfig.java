package dev.orchestrate.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * Where the state is kept and how runners that share it treat each other ({@code state} in the
 * config).
 *
 * @param url          the state's location when the command line and {@code ORCHESTRATE_STATE}
 *                     name none: a directory, or {@code postgresql://user@host:5432/db}; null for
 *                     the default ({@code ./.orchestrate})
 * @param leaseTimeout how old a runner's heartbeat may get before other runners of a shared state
 *                     take it for dead and take its items over
 */
public record StateConfig(String url, Duration leaseTimeout) {
  public static final Duration DEFAULT_LEASE_TIMEOUT = Duration.ofSeconds(30);
  /** A line that may start the {@code state} section: {@code state:} at its beginning, not in a comment. */
  private static final Pattern STATE_LINE = Pattern.compile("^[ \\t{]*[\"']?state[\"']?[ \\t]*:", Pattern.MULTILINE);
  /** The config files {@link #mayBeSetIn} reads whole; a larger one is left to the YAML reader, which refuses it. */
  private static final long MAX_SCANNED_BYTES = 1L << 20;

  public StateConfig {
    if (leaseTimeout == null || leaseTimeout.isNegative() || leaseTimeout.isZero()) {
      throw new IllegalArgumentException("lease_timeout must be more than zero, got " + leaseTimeout);
    }
  }

  /**
   * Whether the config {@code file} may have a {@code state} section, found without parsing YAML:
   * false only when no line starts {@code state:}. Commands that read nothing else of the config
   * ({@code status}, {@code jobs}, ...) ask this first, so that they load neither the YAML parser
   * nor the config loader (start-up time) for a config that leaves the state alone. An unreadable
   * file may: reading it reports why.
   */
  static boolean mayBeSetIn(Path file) {
    try {
      return Files.size(file) > MAX_SCANNED_BYTES
          || STATE_LINE.matcher(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1)).find();
    } catch (IOException e) {
      return true;
    }
  }

  static StateConfig defaults() {
    return new StateConfig(null, DEFAULT_LEASE_TIMEOUT);
  }
}
