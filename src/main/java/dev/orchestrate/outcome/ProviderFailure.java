package dev.orchestrate.outcome;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Objects;
import java.util.Optional;

/**
 * The agent's provider, not its work, ended the attempt: a usage limit, a rate limit or overload
 * the CLI gave up on, a refused key, or permission denials; or the CLI's own budget flag cut it.
 * Found in what the CLI printed by its preset's reader or by {@link ProviderText}.
 *
 * @param kind        {@link OutcomeClass#USAGE_LIMIT}, {@link OutcomeClass#RATE_LIMITED},
 *                    {@link OutcomeClass#AUTH}, {@link OutcomeClass#SANDBOX}, {@link OutcomeClass#DENIED} or
 *                    {@link OutcomeClass#BUDGET_EXHAUSTED}
 * @param message     what the CLI said (masked, capped by the reader)
 * @param resetEpoch  when the limit resets, as the CLI gave it in epoch seconds or milliseconds; null
 * @param resetIn     how long until it resets or the provider asked to wait; null
 */
public record ProviderFailure(OutcomeClass kind, String message, Long resetEpoch, Duration resetIn) {
  public ProviderFailure {
    Objects.requireNonNull(kind, "kind");
    message = message == null ? "" : message;
  }

  public static ProviderFailure of(OutcomeClass kind, String message) {
    return new ProviderFailure(kind, message, null, null);
  }

  /**
   * When the limit resets, if the CLI said: its epoch, else its delay from {@code now}, else a
   * time its message names (read in {@code zone} when it names none).
   */
  public Optional<Instant> resetsAt(Instant now, ZoneId zone) {
    if (resetEpoch != null) {
      return ResetTimes.epoch(resetEpoch, now);
    }
    if (resetIn != null && !resetIn.isNegative() && resetIn.compareTo(ResetTimes.HORIZON) <= 0) {
      return Optional.of(now.plus(resetIn));
    }
    return ResetTimes.parse(message, now, zone);
  }
}
